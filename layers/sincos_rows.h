// Rows of cos(p·freq_i) and sin(p·freq_i) for any frequencies, by exact block
// rotation: the machinery of sinusoidal.cc, for RoPE and its scaled frequencies.
//
// A position p = q·kBlock + r is the block start q·kBlock turned by r·freq_i:
// one multiply-add per value from two small tables (cos and sin of r·freq_i,
// r < kBlock) made once. The block-start rows come from BlockStarts, as a
// function of q alone, so a row never depends on where a call starts or how
// rows are split among threads. Every value is within 2e-6·amplitude of the
// exact formula for positions below 2^24 (tests/layers/rope_test.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/size_limits.h"
#include "layers/block_starts.h"

namespace phasor {

class SinCosRows {
 public:
  static constexpr int64_t kBlock = 16;  // rows per rotation table
  static constexpr int64_t kMaxPosition = ::phasor::kMaxPosition;

  SinCosRows() = default;

  // freq: [half] angular frequencies (finite, >= 0); amplitude multiplies every
  // value; table_rows: rows of the cached table (0: none). Reuses this object's
  // memory where it can (no allocation when the sizes do not grow). Throws Error
  // for a table too large to allocate.
  void Init(const std::vector<double>& freq, double amplitude, int64_t table_rows);

  int64_t half() const { return half_; }
  int64_t table_rows() const { return table_rows_; }
  const std::vector<double>& freq() const { return freq_; }  // [half]

  // out: [n, 2·half] row-major; row j, for p = first_pos + j, holds
  //   amplitude·cos(p·freq_0 .. p·freq_{half-1}) | amplitude·sin(p·freq_0 ..).
  // Rows inside the table are copied from it, the rest rotated. FillSerial runs
  // on the calling thread; Fill splits rows across threads (ParallelFor). The
  // caller checks the range (0 <= first_pos, first_pos + n <= kMaxPosition).
  void FillSerial(int64_t first_pos, int64_t n, float* out) const;
  void Fill(int64_t first_pos, int64_t n, float* out) const;

 private:
  void FillRotation(int64_t first_pos, int64_t n, float* out) const;

  int64_t half_ = 0;
  double amplitude_ = 1.0;
  std::vector<double> freq_;  // [half]
  BlockStarts starts_;        // the block-start rows
  std::vector<float> rot_c_;  // [kBlock, 2·half] cos(r·freq_i) on both halves
  std::vector<float> rot_s_;  // [kBlock, 2·half] -sin(r·freq_i) on the cos half, +sin on sin
  std::vector<float> table_;  // [table_rows, 2·half]
  int64_t table_rows_ = 0;
};

}  // namespace phasor

// Sinusoidal positional encoding (Attention Is All You Need, section 3.5).
//
// Row p holds, for each pair i, sin(p·freq_i) and cos(p·freq_i) (see
// frequencies.h for freq_i and positional.h for layouts and modes).
//
// Rows come from the rotation engine (rotation_rows.h): exact block rotation,
// every value within 2e-6 of the exact formula for every position below
// kMaxPosition (2^40), the same bits for any thread count and any split of a
// call.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/kernels/rotate_rows.h"
#include "layers/positional.h"
#include "layers/rotation_rows.h"

namespace phasor {

struct SinusoidalOptions {
  int64_t d_model = 512;
  double base = 10000.0;
  PeLayout layout = PeLayout::kInterleaved;
  PeDenominator denominator = PeDenominator::kDModel;
  int64_t max_len = 4096;  // rows of the cached table (modes cached and auto)
  PeMode mode = PeMode::kAuto;
};

class SinusoidalEncoding {
 public:
  static constexpr int64_t kBlock = RotationRows::kBlock;
  static constexpr int64_t kMaxPosition = RotationRows::kMaxPosition;

  // Builds the frequency ladder and the engine (with the table of max_len
  // rows in modes cached and auto). Throws Error for an odd or too small
  // d_model, a base that is not finite and > 1, a negative max_len, or a table
  // too large to allocate.
  explicit SinusoidalEncoding(const SinusoidalOptions& options);

  const SinusoidalOptions& options() const { return options_; }
  int64_t d_model() const { return options_.d_model; }
  const std::vector<double>& freq() const { return rows_.freq(); }  // [d_model/2], in double
  const RotationRows& rows() const { return rows_; }

  // out[j] = PE(first_pos + j) for j < n; out: [n, d_model] row-major, rows in
  // parallel (RotationRows::Fill). Throws Error if a position is negative,
  // past kMaxPosition, or (mode cached) at or past max_len.
  void Fill(int64_t first_pos, int64_t n, float* out) const { rows_.Fill(first_pos, n, out); }

  // The same with a token source added (src may be null), on the calling
  // thread only (RotationRows::FillSerial).
  void FillSerial(int64_t first_pos, int64_t n, const RowSource* src, float* out,
                  kernels::Stores stores = kernels::Stores::kCached) const {
    rows_.FillSerial(first_pos, n, src, out, stores);
  }

  // Throws Error unless positions [first_pos, first_pos + n) can be produced.
  void CheckRange(int64_t first_pos, int64_t n) const { rows_.CheckRange(first_pos, n); }

  // The baseline: sin and cos per value (of the angle reduced in long double,
  // ReducedAngle), no table read; rows in parallel as Fill. For benchmarks and
  // as a second opinion.
  void FillDirect(int64_t first_pos, int64_t n, const RowSource* src, float* out) const;

  // The cached table, [table_rows(), d_model]; empty in mode on_the_fly.
  const float* table() const { return rows_.table(); }
  int64_t table_rows() const { return rows_.table_rows(); }

 private:
  // Index of element (pair i, sin) and (pair i, cos) in a row.
  int64_t SinIndex(int64_t i) const;
  int64_t CosIndex(int64_t i) const;

  SinusoidalOptions options_;
  int64_t half_ = 0;
  RotationRows rows_;
};

}  // namespace phasor

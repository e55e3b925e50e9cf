// The rotation engine behind sinusoidal PE and RoPE: rows of
//   amplitude·(sin, cos)(p·freq_i), one pair per frequency,
// for any frequency ladder, pair layout and amplitude, by exact block rotation.
//
// A position p = q·kBlock + r is the block start q·kBlock turned by r·freq_i:
// one product per value from a small table of (cos, sin)(r·freq_i), r < kBlock,
// made once (kernels::TurnRows). The block-start rows come from BlockStarts, in
// double, as a function of q alone, so a row's value depends neither on where
// a call starts nor on how rows are split among threads: results are the same
// bits for any thread count and any split of a call. Every value is within
// 2e-6·amplitude of the exact formula for every position accepted (below
// kMaxPosition = 2^40; a few float roundings; tests/layers/rotation_rows_test.cc,
// far_positions_test.cc): the angles are formed from the long double ladder
// and reduced modulo 2π in long double (ReducedAngle, frequencies.h).
//
// The engine owns everything a positional layer needs beyond its ladder: the
// rotation table, the block starts, the cached table of max_len rows and the
// choice between it and rotation (PeMode), the split of rows into parallel
// tasks, and the range check.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/aligned_allocator.h"
#include "engine/kernels/rotate_rows.h"
#include "engine/parallel.h"
#include "engine/size_limits.h"
#include "layers/block_starts.h"
#include "layers/positional.h"

namespace phasor {

// Rows of a token table to add to the rows made: out[j] = table[ids[j]]·scale
// + row j. The ids must already be validated (0 <= id < rows of table).
struct RowSource {
  const float* table = nullptr;  // [vocab, width]
  const int32_t* ids = nullptr;  // [n]
  float scale = 1.0f;
};

// Where the sin and cos of pair i sit in a row of width 2·half.
struct RotationLayout {
  kernels::PairSlots slots = kernels::PairSlots::kAdjacent;  // (2i, 2i+1) or (i, half+i)
  bool cos_first = false;  // the pair's first slot holds cos (RoPE) rather than sin (PE)
};

struct RotationOptions {
  std::vector<long double> freq;  // [half] angular frequencies: finite, >= 0
  double amplitude = 1.0;         // multiplies every value (yarn's attention factor)
  RotationLayout layout;
  PeMode mode = PeMode::kAuto;
  int64_t max_len = 4096;         // rows of the cached table (modes cached and auto)
  std::string table_name = "PE";  // names the table in errors: "the cached PE table"
  // The libraries' arithmetic (RoPE's library angles, layers/library_angles.h):
  // freq holds float32 values, each angle is the float32 product
  // LibraryAngle(p, freq_i), its cos and sin are rounded once to float and
  // multiplied by the amplitude in float. Rows are made one at a time, not by
  // block rotation (a float32 angle does not add up over a block).
  bool float32_angles = false;
};

class RotationRows {
 public:
  static constexpr int64_t kBlock = 32;          // rows per block start
  static constexpr int64_t kMaxTaskBlocks = 64;  // blocks of the longest parallel task
  // Positions beyond this are refused (engine/size_limits.h).
  static constexpr int64_t kMaxPosition = ::phasor::kMaxPosition;

  RotationRows() = default;
  explicit RotationRows(RotationOptions options) { Init(std::move(options)); }

  // (Re)makes the tables; reuses this object's memory where the sizes do not
  // grow. Throws Error for a frequency not finite or negative, an amplitude
  // not finite, a negative max_len or a table too large to allocate.
  void Init(RotationOptions options);

  int64_t width() const { return 2 * half_; }
  const RotationOptions& options() const { return options_; }
  // [half] options().freq rounded to double.
  const std::vector<double>& freq() const { return freq_; }

  // Throws Error unless positions [first_pos, first_pos + n) can be produced:
  // n or first_pos negative, a position past kMaxPosition, or (mode cached)
  // past the table.
  void CheckRange(int64_t first_pos, int64_t n) const;

  // out[j] = row of position first_pos + j, j < n; out: [n, width] row-major.
  // Rows inside the table (modes cached and auto) are read from it, the rest
  // rotated. Rows in parallel (ForEachTask), streaming stores for an output of
  // kernels::kStreamingBytes or more. Throws Error as CheckRange.
  void Fill(int64_t first_pos, int64_t n, float* out) const;

  // The same with a token source added (src may be null), on the calling
  // thread only: for callers that split rows themselves. stores: how rows are
  // written (kernels::StoresFor the whole output the caller makes); streamed
  // rows are fenced before the call returns.
  void FillSerial(int64_t first_pos, int64_t n, const RowSource* src, float* out,
                  kernels::Stores stores = kernels::Stores::kCached) const;

  // Rows of the longest parallel task at this width: a power of two of at
  // most 2 MB of output, from kBlock up to kMaxTaskBlocks blocks.
  static int64_t TaskRows(int64_t width);

  // Splits batch sequences of positions [first_pos, first_pos + n) into tasks
  // and runs fn(b, p0, p1) for each (sequence b, positions [p0, p1)) on the
  // threads (ParallelTasks): a call short enough gets one range per thread,
  // a longer one tasks of TaskRows(width) rows. The way every positional layer
  // splits its rows among threads.
  static void ForEachTask(int64_t batch, int64_t first_pos, int64_t n, int64_t width,
                          FunctionRef<void(int64_t, int64_t, int64_t)> fn);

  // The cached table, [table_rows(), width]; empty in mode on_the_fly.
  const float* table() const { return table_.data(); }
  int64_t table_rows() const { return table_rows_; }

 private:
  // Rows of float32 angles (options_.float32_angles), on the calling thread.
  void Float32Rows(int64_t first_pos, int64_t n, const RowSource* src, float* out) const;

  // Rows by rotation alone (or Float32Rows), on the calling thread.
  void Rotate(int64_t first_pos, int64_t n, const RowSource* src, float* out,
              kernels::Stores stores) const;

  RotationOptions options_;
  int64_t half_ = 0;
  std::vector<double> freq_;   // [half] options_.freq rounded to double
  BlockStarts starts_;         // the block-start rows
  AlignedFloats turns_;        // [kBlock, width] cos(r·freq_i) | ±sin(r·freq_i)
  UninitAlignedFloats table_;  // [table_rows, width]
  int64_t table_rows_ = 0;
};

}  // namespace phasor

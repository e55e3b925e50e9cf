#include "layers/rotation_rows.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/error.h"
#include "engine/memory_limit.h"
#include "layers/frequencies.h"

namespace phasor {
namespace {

// Largest table a RotationRows builds (bytes).
constexpr int64_t kMaxTableBytes = int64_t{8} << 30;

// Per-thread scratch of the rotation: sized on first use, then reused.
struct Scratch {
  AlignedFloats start;  // [width] a block's start row, x | y halves
  float* Reserve(int64_t width) {
    if (static_cast<int64_t>(start.size()) < width) start.resize(width);
    return start.data();
  }
};

thread_local Scratch tls_scratch;

}  // namespace

void RotationRows::Init(RotationOptions options) {
  const int64_t half = static_cast<int64_t>(options.freq.size());
  const int64_t w = 2 * half;
  const std::string& name = options.table_name;
  for (int64_t i = 0; i < half; ++i) {
    if (!std::isfinite(options.freq[i]) || options.freq[i] < 0) {
      throw Error(name + " frequency " + std::to_string(i) + " must be finite and >= 0, got " +
                  std::to_string(options.freq[i]));
    }
  }
  if (!std::isfinite(options.amplitude)) {
    throw Error(name + " amplitude must be finite, got " + std::to_string(options.amplitude));
  }
  if (options.max_len < 0) {
    throw Error("positional max_len must be >= 0, got " + std::to_string(options.max_len));
  }
  const int64_t rows = options.mode == PeMode::kOnTheFly || half == 0 ? 0 : options.max_len;
  if (rows > kMaxTableBytes / 4 / std::max<int64_t>(w, 1)) {
    throw Error("a cached " + name + " table of " + std::to_string(rows) + " x " +
                std::to_string(w) + " floats is too large; lower max_len or use mode on_the_fly");
  }
  if (rows > 0) {
    CheckAllocation(static_cast<uint64_t>(rows) * static_cast<uint64_t>(w) * 4,
                    "a cached " + name + " table of " + std::to_string(rows) + " x " +
                        std::to_string(w) + " floats");
  }
  options_ = std::move(options);
  half_ = half;
  freq_.assign(options_.freq.begin(), options_.freq.end());
  table_rows_ = 0;
  starts_.Init(options_.freq, kBlock);
  // turns_ row r: cos(r·freq_i) for every pair, then sin(r·freq_i), negated
  // when the pair is (cos, sin), so that TurnRows turns it forward.
  turns_.resize(kBlock * w);
  for (int64_t i = 0; i < half; ++i) {
    for (int64_t r = 0; r < kBlock; ++r) {
      const double phi = ReducedAngle(r, options_.freq[i]);
      const float s = static_cast<float>(std::sin(phi));
      turns_[r * w + i] = static_cast<float>(std::cos(phi));
      turns_[r * w + half + i] = options_.layout.cos_first ? -s : s;
    }
  }
  // The table: not zeroed first, so its bytes are written once.
  table_.clear();
  table_.shrink_to_fit();
  if (rows > 0) {
    table_.resize(static_cast<size_t>(rows * w));
    table_rows_ = rows;
    float* t = table_.data();
    const kernels::Stores stores =
        kernels::StoresFor(rows * w * static_cast<int64_t>(sizeof(float)));
    ForEachTask(1, 0, rows, w, [&](int64_t, int64_t p0, int64_t p1) {
      Rotate(p0, p1 - p0, nullptr, t + p0 * w, stores);
      if (stores == kernels::Stores::kStreaming) kernels::StreamFence();
    });
  }
}

void RotationRows::CheckRange(int64_t first_pos, int64_t n) const {
  if (n < 0) throw Error("negative row count " + std::to_string(n));
  if (first_pos < 0) throw Error("negative position " + std::to_string(first_pos));
  if (n == 0) return;
  if (first_pos > kMaxPosition - n) {
    throw Error("position " + std::to_string(first_pos + n - 1) +
                " is past the largest supported (2^40)");
  }
  if (options_.mode == PeMode::kCached && first_pos + n > table_rows_) {
    throw Error("position " + std::to_string(std::max(first_pos, table_rows_)) +
                " is past the cached " + options_.table_name + " table (max_len " +
                std::to_string(table_rows_) + "); raise max_len or use mode auto or on_the_fly");
  }
}

int64_t RotationRows::TaskRows(int64_t width) {
  constexpr int64_t kTaskBytes = int64_t{2} << 20;
  int64_t rows = kBlock * kMaxTaskBlocks;
  while (rows > kBlock && rows * width * static_cast<int64_t>(sizeof(float)) > kTaskBytes) {
    rows /= 2;
  }
  return rows;
}

void RotationRows::ForEachTask(int64_t batch, int64_t first_pos, int64_t n, int64_t width,
                               FunctionRef<void(int64_t, int64_t, int64_t)> fn) {
  if (batch <= 0 || n <= 0) return;
  // Short calls: one contiguous range of rows per thread, the fewest hand-offs
  // and restarts (on a quiet machine 1K x 512 on 2 threads ran about 1.5x the
  // rate of 8 tasks). Long calls: tasks of TaskRows, handed out one at a
  // time, so that a thread slowed by other work on the machine takes fewer.
  const int64_t threads = NumThreads();
  const int64_t per_seq_threads = std::max<int64_t>(1, (threads + batch - 1) / batch);
  const int64_t even = (n + per_seq_threads - 1) / per_seq_threads;
  const int64_t rows = std::min(TaskRows(width), (even + kBlock - 1) / kBlock * kBlock);
  const int64_t per_seq = (n + rows - 1) / rows;
  ParallelTasks(batch * per_seq, 0, [&](int64_t t, int /*slot*/) {
    const int64_t p0 = first_pos + (t % per_seq) * rows;
    fn(t / per_seq, p0, std::min(first_pos + n, p0 + rows));
  });
}

void RotationRows::Fill(int64_t first_pos, int64_t n, float* out) const {
  CheckRange(first_pos, n);
  const int64_t w = width();
  const kernels::Stores stores = kernels::StoresFor(n * w * static_cast<int64_t>(sizeof(float)));
  ForEachTask(1, first_pos, n, w, [&](int64_t, int64_t p0, int64_t p1) {
    FillSerial(p0, p1 - p0, nullptr, out + (p0 - first_pos) * w, stores);
  });
}

void RotationRows::FillSerial(int64_t first_pos, int64_t n, const RowSource* src, float* out,
                              kernels::Stores stores) const {
  CheckRange(first_pos, n);
  const int64_t w = width();
  int64_t j = 0;
  // Rows inside the table are read from it.
  const int64_t in_table = std::clamp<int64_t>(table_rows_ - first_pos, 0, n);
  for (; j < in_table; ++j) {
    const float* t = table_.data() + (first_pos + j) * w;
    const float* x = src ? src->table + static_cast<int64_t>(src->ids[j]) * w : nullptr;
    const kernels::Ahead ahead =
        src ? kernels::AheadRows(src->table, src->ids, j, n, w) : kernels::Ahead{};
    kernels::ScaleAddRow(x, src ? src->scale : 1.0f, t, w, out + j * w, {stores, ahead});
  }
  if (j < n) {
    RowSource shifted;
    if (src) shifted = {src->table, src->ids + j, src->scale};
    Rotate(first_pos + j, n - j, src ? &shifted : nullptr, out + j * w, stores);
  }
  if (stores == kernels::Stores::kStreaming) kernels::StreamFence();
}

void RotationRows::Rotate(int64_t first_pos, int64_t n, const RowSource* src, float* out,
                          kernels::Stores stores) const {
  if (n <= 0 || half_ == 0) return;
  if (options_.float32_angles) {
    Float32Rows(first_pos, n, src, out);
    return;
  }
  const int64_t w = width();
  const double amplitude = options_.amplitude;
  const bool cos_first = options_.layout.cos_first;
  float* __restrict a = tls_scratch.Reserve(w);
  for (int64_t j = 0; j < n;) {
    const int64_t q = (first_pos + j) / kBlock;
    // The block's start row: (sin, cos) per pair in double, to x | y halves
    // (TurnRows' input whatever the output's slots) at the amplitude, in float.
    const double* start = starts_.Row(q);
    const int64_t xs = cos_first ? 1 : 0;  // where x sits in start's pairs
    for (int64_t i = 0; i < half_; ++i) {
      a[i] = static_cast<float>(amplitude * start[2 * i + xs]);
      a[half_ + i] = static_cast<float>(amplitude * start[2 * i + 1 - xs]);
    }
    const int64_t r0 = (first_pos + j) - q * kBlock;
    const int64_t rows = std::min(kBlock - r0, n - j);
    const kernels::Gather g =
        src ? kernels::Gather{src->table, src->ids + j, n - j, src->scale} : kernels::Gather{};
    kernels::TurnRows({a, turns_.data() + r0 * w, rows, w, options_.layout.slots,
                       src ? &g : nullptr, out + j * w, stores});
    j += rows;
  }
}

void RotationRows::Float32Rows(int64_t first_pos, int64_t n, const RowSource* src,
                               float* out) const {
  const int64_t w = width();
  const float amplitude = static_cast<float>(options_.amplitude);
  const bool adjacent = options_.layout.slots == kernels::PairSlots::kAdjacent;
  const bool cos_first = options_.layout.cos_first;
  for (int64_t j = 0; j < n; ++j) {
    float* o = out + j * w;  // [w]
    for (int64_t i = 0; i < half_; ++i) {
      const double angle = LibraryAngle(first_pos + j, static_cast<float>(freq_[i]));
      float c = static_cast<float>(std::cos(angle)), s = static_cast<float>(std::sin(angle));
      if (amplitude != 1.0f) c *= amplitude, s *= amplitude;
      const int64_t first = adjacent ? 2 * i : i, second = adjacent ? 2 * i + 1 : half_ + i;
      o[first] = cos_first ? c : s;
      o[second] = cos_first ? s : c;
    }
    if (src) {
      const float* x = src->table + static_cast<int64_t>(src->ids[j]) * w;  // [w]
      kernels::ScaleAddRow(x, src->scale, o, w, o);
    }
  }
}

}  // namespace phasor

#include "layers/sinusoidal.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/error.h"
#include "engine/kernels/rotate_rows.h"
#include "engine/memory_limit.h"
#include "engine/parallel.h"
#include "layers/frequencies.h"

namespace phasor {
namespace {

// Largest table a SinusoidalEncoding builds (bytes).
constexpr int64_t kMaxTableBytes = int64_t{8} << 30;

// Per-thread scratch of the rotation: sized on first use, then reused.
struct RotationScratch {
  AlignedFloats a, b;  // [d_model] the block-start row in float, and (split layout) swapped
  void Reserve(int64_t d) {
    if (static_cast<int64_t>(a.size()) < d) {
      a.resize(d);
      b.resize(d);
    }
  }
};

thread_local RotationScratch tls_scratch;

}  // namespace

SinusoidalEncoding::SinusoidalEncoding(const SinusoidalOptions& options)
    : options_(options),
      freq_(FrequencyLadder(options.d_model, options.base, options.denominator)),
      starts_(freq_, kBlock) {
  if (options.max_len < 0) {
    throw Error("positional max_len must be >= 0, got " + std::to_string(options.max_len));
  }
  const int64_t d = options.d_model;
  half_ = d / 2;
  // The interleaved layout's rows rotate from half the table (RotatePairsRow).
  const bool pairs = options.layout == PeLayout::kInterleaved;
  (pairs ? rot_u_ : rot_c_).resize(kBlock * d);
  if (!pairs) rot_s_.resize(kBlock * d);
  for (int64_t i = 0; i < half_; ++i) {
    const double f = freq_[i];
    for (int64_t r = 0; r < kBlock; ++r) {
      const double phi = static_cast<double>(r) * f;
      const float c = static_cast<float>(std::cos(phi));
      const float s = static_cast<float>(std::sin(phi));
      if (pairs) {
        rot_u_[r * d + 2 * i] = c;
        rot_u_[r * d + 2 * i + 1] = s;
      } else {
        rot_c_[r * d + SinIndex(i)] = c;
        rot_c_[r * d + CosIndex(i)] = c;
        rot_s_[r * d + SinIndex(i)] = s;
        rot_s_[r * d + CosIndex(i)] = -s;
      }
    }
  }
  if (options.mode != PeMode::kOnTheFly && options.max_len > 0) {
    if (options.max_len > kMaxTableBytes / 4 / d) {
      throw Error("a cached PE table of " + std::to_string(options.max_len) + " x " +
                  std::to_string(d) + " floats is too large; lower max_len or use mode on_the_fly");
    }
    CheckAllocation(static_cast<uint64_t>(options.max_len) * static_cast<uint64_t>(d) * 4,
                    "a cached PE table of " + std::to_string(options.max_len) + " x " +
                        std::to_string(d) + " floats");
    table_rows_ = options.max_len;
    table_.resize(table_rows_ * d);
    const int64_t grain = kBlock * kMaxTaskBlocks;
    ParallelFor((table_rows_ + grain - 1) / grain, 1, [&](int64_t begin, int64_t end) {
      const int64_t first = begin * grain;
      const int64_t last = std::min(end * grain, table_rows_);
      FillRotation(first, last - first, nullptr, table_.data() + first * d,
                   kernels::Stores::kCached);
    });
  }
}

int64_t SinusoidalEncoding::SinIndex(int64_t i) const {
  return options_.layout == PeLayout::kInterleaved ? 2 * i : i;
}

int64_t SinusoidalEncoding::CosIndex(int64_t i) const {
  return options_.layout == PeLayout::kInterleaved ? 2 * i + 1 : half_ + i;
}

void SinusoidalEncoding::CheckRange(int64_t first_pos, int64_t n) const {
  if (n < 0) throw Error("negative row count " + std::to_string(n));
  if (first_pos < 0) throw Error("negative position " + std::to_string(first_pos));
  if (n == 0) return;
  if (first_pos > kMaxPosition - n) {
    throw Error("position " + std::to_string(first_pos + n - 1) +
                " is past the largest supported (2^40)");
  }
  if (options_.mode == PeMode::kCached && first_pos + n > table_rows_) {
    throw Error("position " + std::to_string(std::max(first_pos, table_rows_)) +
                " is past the cached PE table (max_len " + std::to_string(table_rows_) +
                "); raise max_len or use mode auto or on_the_fly");
  }
}

int64_t SinusoidalEncoding::TaskRows(int64_t d_model) {
  constexpr int64_t kTaskBytes = int64_t{2} << 20;
  int64_t rows = kBlock * kMaxTaskBlocks;
  while (rows > kBlock && rows * d_model * static_cast<int64_t>(sizeof(float)) > kTaskBytes) {
    rows /= 2;
  }
  return rows;
}

void SinusoidalEncoding::Fill(int64_t first_pos, int64_t n, float* out) const {
  CheckRange(first_pos, n);
  if (n == 0) return;
  const int64_t d = options_.d_model;
  const kernels::Stores stores = kernels::StoresFor(n * d * static_cast<int64_t>(sizeof(float)));
  // Dynamic tasks: a thread slowed by other work on the machine takes fewer.
  const int64_t rows = TaskRows(d);
  const int64_t first_task = first_pos / rows;
  const int64_t tasks = (first_pos + n - 1) / rows - first_task + 1;
  ParallelTasks(tasks, 0, [&](int64_t t, int /*slot*/) {
    const int64_t p0 = std::max(first_pos, (first_task + t) * rows);
    const int64_t p1 = std::min(first_pos + n, (first_task + t + 1) * rows);
    FillSerial(p0, p1 - p0, nullptr, out + (p0 - first_pos) * d, stores);
  });
}

void SinusoidalEncoding::FillSerial(int64_t first_pos, int64_t n, const RowSource* src, float* out,
                                    kernels::Stores stores) const {
  CheckRange(first_pos, n);
  const int64_t d = options_.d_model;
  int64_t j = 0;
  if (options_.mode != PeMode::kOnTheFly) {
    // Rows inside the table are read from it.
    const int64_t in_table = std::clamp<int64_t>(table_rows_ - first_pos, 0, n);
    for (; j < in_table; ++j) {
      const float* t = table_.data() + (first_pos + j) * d;
      const float* x = src ? src->table + static_cast<int64_t>(src->ids[j]) * d : nullptr;
      const kernels::Ahead ahead =
          src ? kernels::AheadRows(src->table, src->ids, j, n, d) : kernels::Ahead{};
      kernels::ScaleAddRow(x, src ? src->scale : 1.0f, t, d, out + j * d, stores, ahead);
    }
  }
  if (j < n) {
    RowSource shifted;
    if (src) shifted = {src->table, src->ids + j, src->scale};
    FillRotation(first_pos + j, n - j, src ? &shifted : nullptr, out + j * d, stores);
  }
  if (stores == kernels::Stores::kStreaming) kernels::StreamFence();
}

void SinusoidalEncoding::FillRotation(int64_t first_pos, int64_t n, const RowSource* src,
                                      float* out, kernels::Stores stores) const {
  const int64_t d = options_.d_model;
  RotationScratch& w = tls_scratch;
  w.Reserve(d);
  float* __restrict a = w.a.data();
  float* __restrict b = w.b.data();
  const bool pairs = !rot_u_.empty();
  for (int64_t j = 0; j < n;) {
    const int64_t q = (first_pos + j) / kBlock;
    // The block's start row, (sin, cos) per pair in double, in the row's layout.
    const double* start = starts_.Row(q);
    if (pairs) {
      for (int64_t k = 0; k < d; ++k) a[k] = static_cast<float>(start[k]);
    } else {
      for (int64_t i = 0; i < half_; ++i) {
        a[i] = b[half_ + i] = static_cast<float>(start[2 * i]);
        a[half_ + i] = b[i] = static_cast<float>(start[2 * i + 1]);
      }
    }
    const int64_t r0 = (first_pos + j) - q * kBlock;
    const int64_t rows = std::min(kBlock - r0, n - j);
    if (pairs) {
      const kernels::Gather g =
          src ? kernels::Gather{src->table, src->ids + j, n - j, src->scale} : kernels::Gather{};
      kernels::RotatePairsRows(a, rot_u_.data() + r0 * d, rows, d, src ? &g : nullptr, out + j * d,
                               stores);
      j += rows;
      continue;
    }
    for (int64_t r = r0; r < r0 + rows; ++r, ++j) {
      const float* c = rot_c_.data() + r * d;
      const float* s = rot_s_.data() + r * d;
      if (src) {
        const float* x = src->table + static_cast<int64_t>(src->ids[j]) * d;
        kernels::RotateRowAdd(a, b, c, s, x, src->scale, d, out + j * d, stores,
                              kernels::AheadRows(src->table, src->ids, j, n, d));
      } else {
        kernels::RotateRow(a, b, c, s, d, out + j * d, stores);
      }
    }
  }
}

void SinusoidalEncoding::FillDirect(int64_t first_pos, int64_t n, const RowSource* src,
                                    float* out) const {
  if (n < 0 || first_pos < 0 || first_pos > kMaxPosition - n) CheckRange(first_pos, n);
  const int64_t d = options_.d_model;
  for (int64_t j = 0; j < n; ++j) {
    float* row = out + j * d;
    const double pos = static_cast<double>(first_pos + j);
    for (int64_t i = 0; i < half_; ++i) {
      const double angle = pos * freq_[i];
      row[SinIndex(i)] = static_cast<float>(std::sin(angle));
      row[CosIndex(i)] = static_cast<float>(std::cos(angle));
    }
    if (src) {
      const float* x = src->table + static_cast<int64_t>(src->ids[j]) * d;
      for (int64_t k = 0; k < d; ++k) row[k] += x[k] * src->scale;
    }
  }
}

}  // namespace phasor

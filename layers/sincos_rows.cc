#include "layers/sincos_rows.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>

#include "engine/error.h"
#include "engine/kernels/rotate_rows.h"
#include "engine/memory_limit.h"
#include "engine/parallel.h"

namespace phasor {
namespace {

// Largest table a SinCosRows builds (bytes).
constexpr int64_t kMaxTableBytes = int64_t{8} << 30;

// Per-thread scratch of the rotation: sized on first use, then reused.
struct Scratch {
  std::vector<float> a, b;  // [2·half] block-start row (cos | sin), and swapped
  void Reserve(int64_t half) {
    if (static_cast<int64_t>(a.size()) < 2 * half) {
      a.resize(2 * half);
      b.resize(2 * half);
    }
  }
};

thread_local Scratch tls_scratch;

}  // namespace

void SinCosRows::Init(const std::vector<double>& freq, double amplitude, int64_t table_rows) {
  const int64_t half = static_cast<int64_t>(freq.size());
  const int64_t w = 2 * half;
  if (table_rows < 0) throw Error("negative table size " + std::to_string(table_rows));
  if (table_rows > 0 && half > 0 && table_rows > kMaxTableBytes / 4 / w) {
    throw Error("a cached table of " + std::to_string(table_rows) + " x " + std::to_string(w) +
                " floats is too large; lower max_len or use mode on_the_fly");
  }
  if (table_rows > 0) {
    CheckAllocation(
        SaturatingMul(static_cast<uint64_t>(table_rows), 4 * static_cast<uint64_t>(w)),
        "a cached table of " + std::to_string(table_rows) + " x " + std::to_string(w) + " floats");
  }
  half_ = half;
  amplitude_ = amplitude;
  freq_.assign(freq.begin(), freq.end());
  starts_.Init(freq_, kBlock);
  rot_c_.resize(kBlock * w);
  rot_s_.resize(kBlock * w);
  for (int64_t i = 0; i < half; ++i) {
    const double f = freq_[i];
    for (int64_t r = 0; r < kBlock; ++r) {
      const double phi = static_cast<double>(r) * f;
      const float c = static_cast<float>(std::cos(phi));
      const float s = static_cast<float>(std::sin(phi));
      // cos(θ+φ) = cos θ·cos φ - sin θ·sin φ;  sin(θ+φ) = sin θ·cos φ + cos θ·sin φ.
      rot_c_[r * w + i] = c;
      rot_c_[r * w + half + i] = c;
      rot_s_[r * w + i] = -s;
      rot_s_[r * w + half + i] = s;
    }
  }
  table_rows_ = table_rows;
  table_.resize(table_rows * w);
  if (table_rows > 0 && half > 0) {
    const int64_t grain = kBlock * 64;  // rows per parallel piece of the table
    ParallelFor((table_rows + grain - 1) / grain, 1, [&](int64_t begin, int64_t end) {
      const int64_t first = begin * grain;
      const int64_t last = std::min(end * grain, table_rows);
      FillRotation(first, last - first, table_.data() + first * w);
    });
  }
}

void SinCosRows::Fill(int64_t first_pos, int64_t n, float* out) const {
  const int64_t w = 2 * half_;
  const int64_t grain = kBlock * 8;
  ParallelFor((n + grain - 1) / grain, 1, [&](int64_t begin, int64_t end) {
    const int64_t j0 = begin * grain;
    const int64_t j1 = std::min(end * grain, n);
    FillSerial(first_pos + j0, j1 - j0, out + j0 * w);
  });
}

void SinCosRows::FillSerial(int64_t first_pos, int64_t n, float* out) const {
  assert(first_pos >= 0 && n >= 0 && first_pos <= kMaxPosition - n);
  const int64_t w = 2 * half_;
  const int64_t in_table = std::clamp<int64_t>(table_rows_ - first_pos, 0, n);
  if (in_table > 0) {
    std::copy(table_.data() + first_pos * w, table_.data() + (first_pos + in_table) * w, out);
  }
  if (in_table < n) FillRotation(first_pos + in_table, n - in_table, out + in_table * w);
}

void SinCosRows::FillRotation(int64_t first_pos, int64_t n, float* out) const {
  if (n <= 0 || half_ == 0) return;
  const int64_t w = 2 * half_;
  Scratch& s = tls_scratch;
  s.Reserve(half_);
  float* a = s.a.data();
  float* b = s.b.data();
  for (int64_t j = 0; j < n;) {
    const int64_t q = (first_pos + j) / kBlock;
    const double* start = starts_.Row(q);  // (sin, cos) per pair
    for (int64_t i = 0; i < half_; ++i) {
      const float c = static_cast<float>(amplitude_ * start[2 * i + 1]);
      const float v = static_cast<float>(amplitude_ * start[2 * i]);
      a[i] = c;
      a[half_ + i] = v;
      b[i] = v;
      b[half_ + i] = c;
    }
    const int64_t r0 = (first_pos + j) - q * kBlock;
    const int64_t rows = std::min(kBlock - r0, n - j);
    for (int64_t r = r0; r < r0 + rows; ++r, ++j) {
      kernels::RotateRow(a, b, rot_c_.data() + r * w, rot_s_.data() + r * w, w, out + j * w);
    }
  }
}

}  // namespace phasor

#include "layers/sinusoidal.h"

#include <cmath>

#include "layers/frequencies.h"

namespace phasor {
namespace {

RotationOptions EngineOptions(const SinusoidalOptions& o) {
  RotationOptions r;
  CheckLadder(o.d_model, o.base, o.denominator);
  r.freq = FrequencyLadderLong(o.d_model, o.base, o.denominator);
  r.layout.slots = o.layout == PeLayout::kInterleaved ? kernels::PairSlots::kAdjacent
                                                      : kernels::PairSlots::kHalves;
  r.mode = o.mode;
  r.max_len = o.max_len;
  r.table_name = "PE";
  return r;
}

}  // namespace

SinusoidalEncoding::SinusoidalEncoding(const SinusoidalOptions& options)
    : options_(options), half_(options.d_model / 2), rows_(EngineOptions(options)) {}

int64_t SinusoidalEncoding::SinIndex(int64_t i) const {
  return options_.layout == PeLayout::kInterleaved ? 2 * i : i;
}

int64_t SinusoidalEncoding::CosIndex(int64_t i) const {
  return options_.layout == PeLayout::kInterleaved ? 2 * i + 1 : half_ + i;
}

void SinusoidalEncoding::FillDirect(int64_t first_pos, int64_t n, const RowSource* src,
                                    float* out) const {
  if (n < 0 || first_pos < 0 || first_pos > kMaxPosition - n) CheckRange(first_pos, n);
  const int64_t d = options_.d_model;
  const std::vector<long double>& freq = rows_.options().freq;
  RotationRows::ForEachTask(1, first_pos, n, d, [&](int64_t, int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t j = p - first_pos;
      float* row = out + j * d;
      for (int64_t i = 0; i < half_; ++i) {
        const double angle = ReducedAngle(p, freq[i]);
        row[SinIndex(i)] = static_cast<float>(std::sin(angle));
        row[CosIndex(i)] = static_cast<float>(std::cos(angle));
      }
      if (src) {
        const float* x = src->table + static_cast<int64_t>(src->ids[j]) * d;
        for (int64_t k = 0; k < d; ++k) row[k] += x[k] * src->scale;
      }
    }
  });
}

}  // namespace phasor

#include "models/pooling.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "engine/error.h"

namespace phasor {

Pooling ParsePooling(const std::string& name) {
  if (name == "none") return Pooling::kNone;
  if (name == "mean") return Pooling::kMean;
  if (name == "cls") return Pooling::kCls;
  if (name == "max") return Pooling::kMax;
  if (name == "last") return Pooling::kLast;
  if (name == "mean_sqrt_len") return Pooling::kMeanSqrtLen;
  throw Error("unknown pooling '" + name + "', expected mean, cls, max, last or mean_sqrt_len");
}

const char* ToString(Pooling pooling) {
  switch (pooling) {
    case Pooling::kNone:
      return "none";
    case Pooling::kMean:
      return "mean";
    case Pooling::kCls:
      return "cls";
    case Pooling::kMax:
      return "max";
    case Pooling::kLast:
      return "last";
    case Pooling::kMeanSqrtLen:
      return "mean_sqrt_len";
  }
  return "?";
}

void PoolRows(const float* rows, const int64_t* offsets, int64_t batch, int64_t d,
              const PoolSpec& spec, float* out) {
  const Pooling pooling = spec.pooling;
  const bool normalize = spec.normalize;
  assert(pooling != Pooling::kNone);
  std::vector<double> sum(static_cast<size_t>(d));
  for (int64_t b = 0; b < batch; ++b) {
    const float* x = rows + offsets[b] * d;  // [n, d]
    const int64_t n = offsets[b + 1] - offsets[b];
    assert(n > 0);
    float* y = out + b * d;
    switch (pooling) {
      case Pooling::kNone:
      case Pooling::kCls:
        std::copy(x, x + d, y);
        break;
      case Pooling::kLast:
        std::copy(x + (n - 1) * d, x + n * d, y);
        break;
      case Pooling::kMean:
      case Pooling::kMeanSqrtLen: {
        std::fill(sum.begin(), sum.end(), 0.0);
        for (int64_t j = 0; j < n; ++j) {
          for (int64_t k = 0; k < d; ++k) sum[k] += x[j * d + k];
        }
        const double by =
            pooling == Pooling::kMean ? static_cast<double>(n) : std::sqrt(static_cast<double>(n));
        for (int64_t k = 0; k < d; ++k) y[k] = static_cast<float>(sum[k] / by);
        break;
      }
      case Pooling::kMax:
        std::copy(x, x + d, y);
        for (int64_t j = 1; j < n; ++j) {
          for (int64_t k = 0; k < d; ++k) {
            const float v = x[j * d + k];
            if (v > y[k] || std::isnan(v)) y[k] = std::isnan(y[k]) ? y[k] : v;
          }
        }
        break;
    }
    if (normalize) NormalizeRows(y, 1, d);
  }
}

void NormalizeRows(float* rows, int64_t n, int64_t d) {
  for (int64_t b = 0; b < n; ++b) {
    float* y = rows + b * d;
    double norm = 0.0;
    for (int64_t k = 0; k < d; ++k) norm += static_cast<double>(y[k]) * y[k];
    const double scale = 1.0 / std::max(std::sqrt(norm), 1e-12);
    for (int64_t k = 0; k < d; ++k) y[k] = static_cast<float>(y[k] * scale);
  }
}

}  // namespace phasor

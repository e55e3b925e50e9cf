#include "engine/kernels/layer_norm.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "engine/kernels/vector_math.h"
#include "engine/tensor.h"

namespace phasor::kernels {
namespace {

// Normalises one row of n values in place. Two passes with a corrected mean:
// after subtracting the float mean m, the centred values still have a small
// mean d (m's rounding), which is taken out of the variance and the output. So
// a row far from zero (x ≈ 1000 ± 1) keeps full precision.
void NormalizeRow(float* row, int64_t n, const NormParams& p) {
  MapArray v(row, n);
  const float inv_n = 1.0f / static_cast<float>(n);
  v -= Sum(row, n) * inv_n;
  const float d = Sum(row, n) * inv_n;
  const float var = std::max(SumOfSquares(row, n) * inv_n - d * d, 0.0f);
  const float inv_std = 1.0f / std::sqrt(var + p.eps);
  v = (v - d) * inv_std * ConstMapArray(p.gamma, n) + ConstMapArray(p.beta, n);
}

void NormalizeRowNaive(const double* v, int64_t n, const NormParams& p, float* out) {
  double mean = 0.0;
  for (int64_t j = 0; j < n; ++j) mean += v[j];
  mean /= static_cast<double>(n);
  double var = 0.0;
  for (int64_t j = 0; j < n; ++j) var += (v[j] - mean) * (v[j] - mean);
  var /= static_cast<double>(n);
  const double inv_std = 1.0 / std::sqrt(var + static_cast<double>(p.eps));
  for (int64_t j = 0; j < n; ++j) {
    out[j] = static_cast<float>((v[j] - mean) * inv_std * p.gamma[j] + p.beta[j]);
  }
}

}  // namespace

void LayerNorm(const float* x, int64_t rows, int64_t n, const NormParams& p, float* out) {
  assert(rows >= 0 && n > 0 && p.eps >= 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    float* o = out + r * n;
    if (o != x + r * n) MapArray(o, n) = ConstMapArray(x + r * n, n);
    NormalizeRow(o, n, p);
  }
}

void AddLayerNorm(const float* x, const float* residual, int64_t rows, int64_t n,
                  const NormParams& p, float* out) {
  assert(rows >= 0 && n > 0 && p.eps >= 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    float* o = out + r * n;
    // Elementwise, so out may alias either input.
    MapArray(o, n) = ConstMapArray(x + r * n, n) + ConstMapArray(residual + r * n, n);
    NormalizeRow(o, n, p);
  }
}

void LayerNormNaive(const float* x, int64_t rows, int64_t n, const NormParams& p, float* out) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < n; ++j) v[j] = x[r * n + j];
    NormalizeRowNaive(v.data(), n, p, out + r * n);
  }
}

void AddLayerNormNaive(const float* x, const float* residual, int64_t rows, int64_t n,
                       const NormParams& p, float* out) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows; ++r) {
    // The sum is rounded to float first, as the fast kernel and PyTorch do.
    for (int64_t j = 0; j < n; ++j) v[j] = x[r * n + j] + residual[r * n + j];
    NormalizeRowNaive(v.data(), n, p, out + r * n);
  }
}

}  // namespace phasor::kernels

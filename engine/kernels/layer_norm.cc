#include "engine/kernels/layer_norm.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels {
namespace {

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
  Kernels().layer_norm_rows(x, nullptr, rows, n, p, out);
}

void AddLayerNorm(const float* x, const float* residual, int64_t rows, int64_t n,
                  const NormParams& p, float* out) {
  assert(rows >= 0 && n > 0 && p.eps >= 0.0f);
  Kernels().layer_norm_rows(x, residual, rows, n, p, out);
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

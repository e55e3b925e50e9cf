// Layer normalisation over the last dimension, as torch.nn.LayerNorm:
//
//   out[r, j] = (x[r, j] - mean_r) / sqrt(var_r + eps) · gamma[j] + beta[j]
//
// with mean_r and the biased variance var_r (divided by n) of row r. A
// constant row gives beta. Two passes with a corrected mean: after subtracting
// the float mean m, the centred values still have a small mean d (m's
// rounding), which is taken out of the variance and the output, so a row far
// from zero (x ≈ 1000 ± 1) keeps full precision. The sums run in 16 lanes
// (vector_math.h's Sum), in the target's vectors (kernel layer_norm_rows):
// the same bits on every target. The kernels are serial over the rows they are
// given; callers parallelise over rows.
#pragma once

#include <cstdint>

namespace phasor::kernels {

// The norm's parameters: the scale and shift of every column, and the eps
// added to the variance.
struct NormParams {
  const float* gamma;  // [n]
  const float* beta;   // [n]
  float eps;
};

// x, out: [rows, n]. out may equal x.
void LayerNorm(const float* x, int64_t rows, int64_t n, const NormParams& p, float* out);
// The naive twin: plain loops, mean and variance in double.
void LayerNormNaive(const float* x, int64_t rows, int64_t n, const NormParams& p, float* out);

// The residual variant: out = LayerNorm(x + residual), in one pass over the
// rows (post-LN: norm1(x + attention(x))). out may equal x or residual.
void AddLayerNorm(const float* x, const float* residual, int64_t rows, int64_t n,
                  const NormParams& p, float* out);
void AddLayerNormNaive(const float* x, const float* residual, int64_t rows, int64_t n,
                       const NormParams& p, float* out);

}  // namespace phasor::kernels

// Root-mean-square normalisation over the last dimension (RMSNorm: Llama,
// Qwen, Gemma):
//
//   out[r, j] = x[r, j] / sqrt(mean_j x[r, j]² + eps) · (offset + gamma[j])
//
// offset 0 is the usual weight; Gemma's norms scale by (1 + w), offset 1,
// added in float as its modeling file does. The sum of squares runs in 16
// lanes (vector_math.h's SumOfSquares), so the bits are the same on every
// target. Serial over the rows given; callers parallelise over rows.
#pragma once

#include <cstdint>

namespace phasor::kernels {

struct RmsParams {
  const float* gamma;  // [n]
  float offset;        // added to each gamma[j] (0, or Gemma's 1)
  float eps;
};

// x, out: [rows, n]; residual: [rows, n] added to x first (the sum rounded to
// float), or null. out may equal x or residual.
void RmsNorm(const float* x, const float* residual, int64_t rows, int64_t n, const RmsParams& p,
             float* out);
// The naive twin: plain loops in double.
void RmsNormNaive(const float* x, const float* residual, int64_t rows, int64_t n,
                  const RmsParams& p, float* out);

}  // namespace phasor::kernels

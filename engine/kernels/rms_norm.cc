#include "engine/kernels/rms_norm.h"

#include <cassert>
#include <cmath>

#include "engine/kernels/vector_math.h"

namespace phasor::kernels {

void RmsNorm(const float* x, const float* residual, int64_t rows, int64_t n, const RmsParams& p,
             float* out) {
  assert(rows >= 0 && n > 0 && p.eps >= 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = x + r * n;
    float* o = out + r * n;
    if (residual != nullptr) {
      const float* res = residual + r * n;
      for (int64_t j = 0; j < n; ++j) o[j] = in[j] + res[j];
      in = o;
    }
    const float mean = SumOfSquares(in, n) / static_cast<float>(n);
    const float inv = 1.0f / std::sqrt(mean + p.eps);
    for (int64_t j = 0; j < n; ++j) o[j] = in[j] * inv * (p.offset + p.gamma[j]);
  }
}

void RmsNormNaive(const float* x, const float* residual, int64_t rows, int64_t n,
                  const RmsParams& p, float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    double squares = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      const float v = residual != nullptr ? x[r * n + j] + residual[r * n + j] : x[r * n + j];
      squares += static_cast<double>(v) * v;
    }
    const double inv = 1.0 / std::sqrt(squares / static_cast<double>(n) + p.eps);
    for (int64_t j = 0; j < n; ++j) {
      const float v = residual != nullptr ? x[r * n + j] + residual[r * n + j] : x[r * n + j];
      out[r * n + j] = static_cast<float>(v * inv * (static_cast<double>(p.offset) + p.gamma[j]));
    }
  }
}

}  // namespace phasor::kernels

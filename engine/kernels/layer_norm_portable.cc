// The layer norm kernel on the portable target, in scalar code (the reference
// the other targets are tested against): vector_math.h's 16-lane sums, and
// each value's steps in the order of layer_norm_simd.inc.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine/kernels/kernel_table.h"
#include "engine/kernels/vector_math.h"

namespace phasor::kernels::portable {

void LayerNormRows(const float* x, const float* residual, int64_t rows, int64_t n,
                   const NormParams& p, float* out) {
  const float inv_n = 1.0f / static_cast<float>(n);
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;  // [n]
    float* o = out + r * n;       // [n]; may be xr or the residual's row
    if (residual != nullptr) {
      const float* res = residual + r * n;
      for (int64_t j = 0; j < n; ++j) o[j] = xr[j] + res[j];
    } else if (o != xr) {
      std::copy(xr, xr + n, o);
    }
    const float mean = Sum(o, n) * inv_n;
    for (int64_t j = 0; j < n; ++j) o[j] -= mean;
    // The centred values' own small mean d (the rounding of the mean), taken
    // out of the variance and the output.
    const float d = Sum(o, n) * inv_n;
    const float var = std::max(SumOfSquares(o, n) * inv_n - d * d, 0.0f);
    const float inv_std = 1.0f / std::sqrt(var + p.eps);
    for (int64_t j = 0; j < n; ++j) o[j] = (o[j] - d) * inv_std * p.gamma[j] + p.beta[j];
  }
}

}  // namespace phasor::kernels::portable

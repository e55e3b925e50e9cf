// The naive twin of engine/kernels/gemm_int8.h, written from its definition:
// per-channel and per-row symmetric quantization with std::nearbyint, the
// signed integer product in 64-bit arithmetic (no packing, no +128 bytes, no
// column sums), then the same float multiply and add, rounded apart
// (-ffp-contract=off). It shares no code with the kernels.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/kernels/activations.h"

namespace phasor::testing {

struct NaiveInt8 {
  std::vector<int32_t> q;     // [n, in] in [-127, 127]
  std::vector<float> scales;  // [n]
};

// Each of the n rows of v ([n, in]) quantized symmetrically. divide: q = v / s
// (the weights' form); otherwise q = v · (127 / max) (the activations' form).
// A row holding NaN or Inf: scale NaN, q 0. A row whose max leaves the
// multiplier or the scale out of range (0, or 127 / max infinite): scale 0, q 0.
inline NaiveInt8 NaiveQuantize(const float* v, int64_t n, int64_t in, bool divide) {
  NaiveInt8 r;
  r.q.assign(static_cast<size_t>(n * in), 0);
  r.scales.assign(static_cast<size_t>(n), 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    float m = 0.0f;
    bool finite = true;
    for (int64_t k = 0; k < in; ++k) {
      const float a = std::fabs(v[i * in + k]);
      if (!std::isfinite(a)) finite = false;
      if (std::isfinite(a) && a > m) m = a;
    }
    if (!finite) {
      r.scales[i] = std::numeric_limits<float>::quiet_NaN();
      continue;
    }
    const float s = m / 127.0f;
    const float inv = 127.0f / m;
    if (divide ? s == 0.0f : std::isinf(inv)) continue;
    r.scales[i] = s;
    for (int64_t k = 0; k < in; ++k) {
      const float t = divide ? v[i * in + k] / s : v[i * in + k] * inv;
      long rounded = std::lround(std::nearbyint(t));
      if (rounded > 127) rounded = 127;
      if (rounded < -127) rounded = -127;
      r.q[i * in + k] = static_cast<int32_t>(rounded);
    }
  }
  return r;
}

// y[rows, out] = act(float(Σ_k qx·qw)·(sx·sw) + b) as gemm_int8.h defines it,
// for act identity or relu; for GELU the value before it (the kernel's GELU
// is compared with a tolerance). x: [rows, in]; w: [out, in]; b: [out] or null.
inline std::vector<float> NaiveInt8Linear(const float* x, int64_t rows, const float* w,
                                          const float* b, int64_t out, int64_t in,
                                          kernels::Activation act) {
  const NaiveInt8 qw = NaiveQuantize(w, out, in, true);
  const NaiveInt8 qx = NaiveQuantize(x, rows, in, false);
  std::vector<float> y(static_cast<size_t>(rows * out));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < out; ++c) {
      long long acc = 0;
      for (int64_t k = 0; k < in; ++k) {
        acc += static_cast<long long>(qx.q[r * in + k]) * qw.q[c * in + k];
      }
      const float scale = qx.scales[r] * qw.scales[c];
      const float prod = static_cast<float>(acc) * scale;
      float v = prod + (b != nullptr ? b[c] : 0.0f);
      if (act == kernels::Activation::kRelu && v < 0.0f) v = 0.0f;  // NaN stays NaN
      y[r * out + c] = v;                                           // GELU: the caller applies it
    }
  }
  return y;
}

}  // namespace phasor::testing

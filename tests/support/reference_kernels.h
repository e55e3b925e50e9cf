// Reference computations for the kernel tests: plain loops in double, written
// from the definitions and sharing no code with engine/kernels, so that a fast
// kernel is checked against something it cannot have in common with it.
#pragma once

#include <cmath>
#include <cstdint>

#include "engine/kernels/activations.h"

namespace phasor::testing {

// act(x) in double: identity, max(x, 0), or the erf form of GELU.
inline double ReferenceActivation(kernels::Activation act, double x) {
  switch (act) {
    case kernels::Activation::kIdentity:
      return x;
    case kernels::Activation::kRelu:
      return x > 0.0 ? x : 0.0;
    case kernels::Activation::kGelu:
      return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case kernels::Activation::kGeluTanh:
      return 0.5 * x *
             (1.0 +
              std::tanh(std::sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
    case kernels::Activation::kSilu:
      return x / (1.0 + std::exp(-x));
  }
  return x;
}

// The fully connected layer with PyTorch's weight layout:
//   y[rows, out] = act(x[rows, in] · Wᵀ + b),  W: [out, in] row-major; b: [out] or null.
// Sums in double; in == 0 gives act(b) (or act(0)) in every row.
inline void ReferenceLinear(const float* x, int64_t rows, int64_t in, const float* w,
                            const float* b, int64_t out, float* y,
                            kernels::Activation act = kernels::Activation::kIdentity) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t o = 0; o < out; ++o) {
      double s = b != nullptr ? b[o] : 0.0;
      for (int64_t i = 0; i < in; ++i) s += static_cast<double>(x[r * in + i]) * w[o * in + i];
      y[r * out + o] = static_cast<float>(ReferenceActivation(act, s));
    }
  }
}

}  // namespace phasor::testing

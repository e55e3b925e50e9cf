#include "engine/kernels/softmax.h"

#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/kernels/vector_math.h"
#include "engine/tensor.h"

namespace phasor::kernels {

void Softmax(const float* x, int64_t rows, int64_t n, float* out, const SoftmaxMask& mask) {
  assert(rows >= 0 && n >= 0);
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (int64_t r = 0; r < rows; ++r) {
    MapArray s(out + r * n, n);
    const ConstMapArray in(x + r * n, n);
    if (mask.add != nullptr) {
      s = in + ConstMapArray(mask.add + r * mask.add_stride, n);
    } else if (s.data() != in.data()) {
      s = in;
    }
    if (mask.key_masked != nullptr) {
      for (int64_t j = 0; j < n; ++j) {
        if (mask.key_masked[j]) s[j] = kNegInf;
      }
    }
    const float max = n > 0 ? s.maxCoeff() : kNegInf;
    if (!(max > kNegInf)) {  // every key masked (or no keys)
      s.setZero();
      continue;
    }
    ExpShifted(s.data(), max, n, s.data());  // exp(-inf) = 0 for the masked keys
    s *= 1.0f / Sum(s.data(), n);            // the sum is >= 1: the max contributes exp(0)
  }
}

void SoftmaxNaive(const float* x, int64_t rows, int64_t n, float* out, const SoftmaxMask& mask) {
  std::vector<double> s(static_cast<size_t>(n));
  std::vector<bool> live(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows; ++r) {
    double max = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < n; ++j) {
      s[j] = x[r * n + j];
      if (mask.add != nullptr) s[j] += mask.add[r * mask.add_stride + j];
      live[j] = !(mask.key_masked != nullptr && mask.key_masked[j]) && !std::isinf(s[j]);
      if (live[j] && s[j] > max) max = s[j];
    }
    double sum = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      s[j] = live[j] ? std::exp(s[j] - max) : 0.0;
      sum += s[j];
    }
    for (int64_t j = 0; j < n; ++j)
      out[r * n + j] = sum > 0.0 ? static_cast<float>(s[j] / sum) : 0.0f;
  }
}

}  // namespace phasor::kernels

#include "engine/kernels/elementwise.h"

#include <cassert>

#include "engine/tensor.h"

namespace phasor::kernels {

void Add(const float* a, const float* b, int64_t n, float* out) {
  assert(n >= 0);
  MapArray(out, n) = ConstMapArray(a, n) + ConstMapArray(b, n);
}

void AddNaive(const float* a, const float* b, int64_t n, float* out) {
  for (int64_t j = 0; j < n; ++j) out[j] = a[j] + b[j];
}

}  // namespace phasor::kernels

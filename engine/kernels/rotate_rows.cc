#include "engine/kernels/rotate_rows.h"

#include <cassert>
#include <cstring>

#include "engine/tensor.h"

namespace phasor::kernels {

void RotateRow(const float* a, const float* b, const float* c, const float* s, int64_t n,
               float* out) {
  assert(n >= 0 && out != a && out != b);
  MapArray(out, n) =
      ConstMapArray(a, n) * ConstMapArray(c, n) + ConstMapArray(b, n) * ConstMapArray(s, n);
}

void RotateRowNaive(const float* a, const float* b, const float* c, const float* s, int64_t n,
                    float* out) {
  for (int64_t j = 0; j < n; ++j) out[j] = a[j] * c[j] + b[j] * s[j];
}

void RotateRowAdd(const float* a, const float* b, const float* c, const float* s, const float* x,
                  float scale, int64_t n, float* out) {
  assert(n >= 0 && out != a && out != b);
  MapArray(out, n) = ConstMapArray(x, n) * scale + (ConstMapArray(a, n) * ConstMapArray(c, n) +
                                                    ConstMapArray(b, n) * ConstMapArray(s, n));
}

void RotateRowAddNaive(const float* a, const float* b, const float* c, const float* s,
                       const float* x, float scale, int64_t n, float* out) {
  for (int64_t j = 0; j < n; ++j) out[j] = x[j] * scale + (a[j] * c[j] + b[j] * s[j]);
}

void ScaleAddRow(const float* x, float scale, const float* t, int64_t n, float* out) {
  assert(n >= 0);
  if (x == nullptr) {
    std::memcpy(out, t, static_cast<size_t>(n) * sizeof(float));
    return;
  }
  MapArray(out, n) = ConstMapArray(x, n) * scale + ConstMapArray(t, n);
}

void ScaleRow(const float* x, float scale, int64_t n, float* out) {
  assert(n >= 0);
  if (scale == 1.0f) {
    MapArray(out, n) = ConstMapArray(x, n);  // vector loads and stores, as the PE kernels
    return;
  }
  MapArray(out, n) = ConstMapArray(x, n) * scale;
}

}  // namespace phasor::kernels

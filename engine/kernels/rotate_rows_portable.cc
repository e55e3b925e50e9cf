// The row kernels of rotate_rows.h in plain C++ and Eigen, vectorised by the
// compiler for the baseline (the reference the other targets are tested
// against). Ordinary stores only: Stores is ignored.
#include <cstdint>

#include "engine/kernels/kernel_table.h"
#include "engine/tensor.h"

namespace phasor::kernels::portable {
namespace {

// value plus its token value (x·1 is x: no multiply); tok may be null.
inline float WithToken(float v, const float* tok, int64_t k, float scale) {
  if (tok == nullptr) return v;
  return (scale == 1.0f ? tok[k] : tok[k] * scale) + v;
}

}  // namespace

void StreamFence() {}

void TurnRows(const float* a, const float* u, int64_t rows, int64_t n, PairSlots slots,
              const Gather* g, float* out, Stores /*stores*/) {
  const int64_t h = n / 2;
  const bool adjacent = slots == PairSlots::kAdjacent;
  const float* ay = a + h;  // the y values
  for (int64_t r = 0; r < rows; ++r) {
    const float* tok = nullptr;
    if (g) {
      tok = g->table + static_cast<int64_t>(g->ids[r]) * n;
      PrefetchRows(AheadRows(g->table, g->ids, r, g->count, n), n);
    }
    const float scale = g ? g->scale : 1.0f;
    const float* c = u + r * n;
    const float* s = c + h;
    float* o = out + r * n;
    for (int64_t i = 0; i < h; ++i) {
      const float xt = a[i] * c[i] + ay[i] * s[i];
      const float yt = ay[i] * c[i] - a[i] * s[i];
      const int64_t kx = adjacent ? 2 * i : i, ky = adjacent ? 2 * i + 1 : h + i;
      o[kx] = WithToken(xt, tok, kx, scale);
      o[ky] = WithToken(yt, tok, ky, scale);
    }
  }
}

void RotateHeads(float* x, int64_t heads, int64_t stride, const float* c, const float* s,
                 int64_t half, PairSlots slots) {
  const bool halves = slots == PairSlots::kHalves;
  for (int64_t h = 0; h < heads; ++h) {
    float* p = x + h * stride;
    for (int64_t i = 0; i < half; ++i) {
      float& xa = p[halves ? i : 2 * i];
      float& xb = p[halves ? half + i : 2 * i + 1];
      const float a = xa, b = xb;
      xa = a * c[i] - b * s[i];
      xb = b * c[i] + a * s[i];
    }
  }
}

int64_t TurnPairs(const double* /*row*/, const double* /*u*/, int64_t /*n*/, double* /*out*/) {
  return 0;  // the caller's scalar loop does the whole row
}

void ScaleRow(const float* x, float scale, int64_t n, float* out, Stores /*stores*/, Ahead ahead) {
  PrefetchRows(ahead, n);
  if (scale == 1.0f) {
    MapArray(out, n) = ConstMapArray(x, n);  // vector loads and stores, as the PE kernels
    return;
  }
  MapArray(out, n) = ConstMapArray(x, n) * scale;
}

void ScaleAddRow(const float* x, float scale, const float* t, int64_t n, float* out, Stores stores,
                 Ahead ahead) {
  if (x == nullptr) {  // a copy of t
    portable::ScaleRow(t, 1.0f, n, out, stores, ahead);
    return;
  }
  PrefetchRows(ahead, n);
  MapArray(out, n) = ConstMapArray(x, n) * scale + ConstMapArray(t, n);
}

void FillRow(float value, int64_t n, float* out, Stores /*stores*/) { MapArray(out, n) = value; }

}  // namespace phasor::kernels::portable

// The row kernels of rotate_rows.h in plain C++ and Eigen, vectorised by the
// compiler for the baseline (the reference the other targets are tested
// against). Ordinary stores only: Stores is ignored.
#include <cstdint>

#include "engine/kernels/kernel_table.h"
#include "engine/tensor.h"

namespace phasor::kernels::portable {
namespace {

// The scalar c, s and b of value k of a pair row (as the vector kernels' lanes).
inline float PairCosAt(const float* u, int64_t k) { return u[k & ~int64_t{1}]; }
inline float PairSinAt(const float* u, int64_t k) {
  const float s = u[k | 1];
  return (k & 1) ? -s : s;
}
inline float PairSwapAt(const float* a, int64_t k) { return a[k ^ 1]; }

inline void PairsRow(const float* a, const float* u, int64_t n, float* out) {
  for (int64_t k = 0; k < n; ++k) {
    out[k] = a[k] * PairCosAt(u, k) + PairSwapAt(a, k) * PairSinAt(u, k);
  }
}

inline void PairsRowAdd(const float* a, const float* u, const float* x, float scale, int64_t n,
                        float* out, Ahead ahead) {
  PrefetchRows(ahead, n);
  // x·1 is x, bit for bit: the multiply is skipped for unscaled token rows.
  for (int64_t k = 0; k < n; ++k) {
    const float rotated = a[k] * PairCosAt(u, k) + PairSwapAt(a, k) * PairSinAt(u, k);
    out[k] = (scale == 1.0f ? x[k] : x[k] * scale) + rotated;
  }
}

}  // namespace

void StreamFence() {}

void RotateRow(const float* a, const float* b, const float* c, const float* s, int64_t n,
               float* out, Stores /*stores*/) {
  MapArray(out, n) =
      ConstMapArray(a, n) * ConstMapArray(c, n) + ConstMapArray(b, n) * ConstMapArray(s, n);
}

void RotatePairsRow(const float* a, const float* u, int64_t n, float* out, Stores /*stores*/) {
  PairsRow(a, u, n, out);
}

void RotatePairsRowAdd(const float* a, const float* u, const float* x, float scale, int64_t n,
                       float* out, Stores /*stores*/, Ahead ahead) {
  PairsRowAdd(a, u, x, scale, n, out, ahead);
}

void RotatePairsRows(const float* a, const float* u, int64_t rows, int64_t n, const Gather* g,
                     float* out, Stores /*stores*/) {
  if (!g) {
    for (int64_t r = 0; r < rows; ++r) PairsRow(a, u + r * n, n, out + r * n);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = g->table + static_cast<int64_t>(g->ids[r]) * n;
    PairsRowAdd(a, u + r * n, x, g->scale, n, out + r * n,
                AheadRows(g->table, g->ids, r, g->count, n));
  }
}

int64_t TurnPairs(const double* /*row*/, const double* /*u*/, int64_t /*n*/, double* /*out*/) {
  return 0;  // the caller's scalar loop does the whole row
}

void RotateRowAdd(const float* a, const float* b, const float* c, const float* s, const float* x,
                  float scale, int64_t n, float* out, Stores /*stores*/, Ahead ahead) {
  PrefetchRows(ahead, n);
  MapArray(out, n) = ConstMapArray(x, n) * scale + (ConstMapArray(a, n) * ConstMapArray(c, n) +
                                                    ConstMapArray(b, n) * ConstMapArray(s, n));
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

// The row kernels of rotate_rows.h in plain C++ and Eigen, vectorised by the
// compiler for the baseline (the reference the other targets are tested
// against). Ordinary stores only: Stores is ignored.
#include <cstdint>

#include "engine/kernels/kernel_table.h"
#include "engine/tensor.h"

namespace phasor::kernels::portable {
namespace {

#include "engine/kernels/turn_pairs_scalar.inc"

// One row of TurnRows, a template per case so that the loop has no branch
// and the compiler vectorises it (the adjacent slots' interleaved stores too).
template <bool kAdjacent, bool kTok, bool kScaled>
void TurnRow(const float* __restrict a, const float* __restrict u, int64_t n,
             const float* __restrict tok, float scale, float* __restrict out) {
  const int64_t h = n / 2;
  const float* ay = a + h;  // the y values
  const float* c = u;
  const float* s = u + h;
  for (int64_t i = 0; i < h; ++i) {
    float xt = a[i] * c[i] + ay[i] * s[i];
    float yt = ay[i] * c[i] - a[i] * s[i];
    const int64_t kx = kAdjacent ? 2 * i : i, ky = kAdjacent ? 2 * i + 1 : h + i;
    if constexpr (kTok) {  // x·1 is x: unscaled token rows are added as they are
      xt = (kScaled ? tok[kx] * scale : tok[kx]) + xt;
      yt = (kScaled ? tok[ky] * scale : tok[ky]) + yt;
    }
    out[kx] = xt;
    out[ky] = yt;
  }
}

template <bool kAdjacent, bool kTok, bool kScaled>
void TurnRowsOf(const float* a, const float* u, int64_t rows, int64_t n, const Gather* g,
                float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* tok = nullptr;
    if constexpr (kTok) {
      tok = g->table + static_cast<int64_t>(g->ids[r]) * n;
      PrefetchRows(AheadRows(g->table, g->ids, r, g->count, n), n);
    }
    TurnRow<kAdjacent, kTok, kScaled>(a, u + r * n, n, tok, kTok ? g->scale : 1.0f, out + r * n);
  }
}

template <bool kAdjacent>
void TurnRowsFor(const float* a, const float* u, int64_t rows, int64_t n, const Gather* g,
                 float* out) {
  if (g && g->scale != 1.0f) {
    TurnRowsOf<kAdjacent, true, true>(a, u, rows, n, g, out);
  } else if (g) {
    TurnRowsOf<kAdjacent, true, false>(a, u, rows, n, g, out);
  } else {
    TurnRowsOf<kAdjacent, false, false>(a, u, rows, n, g, out);
  }
}

}  // namespace

void StreamFence() {}

void TurnRows(const TurnRowsArgs& t) {
  const float *a = t.a, *u = t.u;
  const int64_t rows = t.rows, n = t.n;
  const PairSlots slots = t.slots;
  const Gather* g = t.g;
  float* out = t.out;
  if (slots == PairSlots::kAdjacent) {
    TurnRowsFor<true>(a, u, rows, n, g, out);
  } else {
    TurnRowsFor<false>(a, u, rows, n, g, out);
  }
}

void RotateHeads(const RotateHeadsArgs& hd) {
  float* x = hd.x;
  const int64_t heads = hd.heads, stride = hd.stride, half = hd.half;
  const float *c = hd.c, *s = hd.s;
  const PairSlots slots = hd.slots;
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

void TurnPairs(const double* row, const double* u, int64_t n, double* out) {
  TurnPairsFrom(0, row, u, n, out);
}

void ScaleRow(const float* x, float scale, int64_t n, float* out, RowWrite w) {
  const Ahead ahead = w.ahead;
  PrefetchRows(ahead, n);
  if (scale == 1.0f) {
    MapArray(out, n) = ConstMapArray(x, n);  // vector loads and stores, as the PE kernels
    return;
  }
  MapArray(out, n) = ConstMapArray(x, n) * scale;
}

void ScaleAddRow(const float* x, float scale, const float* t, int64_t n, float* out, RowWrite w) {
  const Ahead ahead = w.ahead;
  if (x == nullptr) {  // a copy of t
    portable::ScaleRow(t, 1.0f, n, out, w);
    return;
  }
  PrefetchRows(ahead, n);
  MapArray(out, n) = ConstMapArray(x, n) * scale + ConstMapArray(t, n);
}

void FillRow(float value, int64_t n, float* out, Stores /*stores*/) { MapArray(out, n) = value; }

}  // namespace phasor::kernels::portable

// The naive twin of kernels::TurnRows (engine/kernels/rotate_rows.h): the
// same formula in the plainest loop, scalar, one output value at a time.
#pragma once

#include <cstdint>

#include "engine/kernels/rotate_rows.h"

namespace phasor::testing {

inline void NaiveTurnRows(const kernels::TurnRowsArgs& t) {
  const float *a = t.a, *u = t.u;
  const int64_t rows = t.rows, n = t.n, h = n / 2;
  const kernels::PairSlots slots = t.slots;
  const kernels::Gather* g = t.g;
  float* out = t.out;
  for (int64_t r = 0; r < rows; ++r) {
    const float* c = u + r * n;
    float* o = out + r * n;
    for (int64_t i = 0; i < h; ++i) {
      const float x = a[i], y = a[h + i];
      const float xt = x * c[i] + y * c[h + i];
      const float yt = y * c[i] - x * c[h + i];
      const bool adjacent = slots == kernels::PairSlots::kAdjacent;
      const int64_t kx = adjacent ? 2 * i : i, ky = adjacent ? 2 * i + 1 : h + i;
      o[kx] = xt;
      o[ky] = yt;
    }
    if (g) {
      const float* tok = g->table + static_cast<int64_t>(g->ids[r]) * n;
      for (int64_t k = 0; k < n; ++k) {
        o[k] = (g->scale == 1.0f ? tok[k] : tok[k] * g->scale) + o[k];
      }
    }
  }
}

}  // namespace phasor::testing

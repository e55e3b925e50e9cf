#include "engine/kernels/rotate_rows.h"

#include <cassert>
#include <cstdint>

#include "engine/kernels/kernel_table.h"

// The kernels of the chosen target (engine/cpu.h): rotate_rows_avx512.cc,
// rotate_rows_avx2.cc (both from rotate_rows_simd.inc) and
// rotate_rows_portable.cc, which all give the same bits.
namespace phasor::kernels {

void StreamFence() { Kernels().stream_fence(); }

void TurnRows(const TurnRowsArgs& t) {
  assert(t.rows >= 0 && t.n >= 0 && t.n % 2 == 0 && t.out != t.a);
  assert(!t.g || t.g->count >= t.rows);
  Kernels().turn_rows(t);
}

void RotateHeads(const RotateHeadsArgs& h) {
  assert(h.heads >= 0 && h.half >= 0 && h.stride >= 2 * h.half);
  Kernels().rotate_heads(h);
}

void TurnPairs(const double* row, const double* u, int64_t n, double* out) {
  assert(n >= 0 && n % 2 == 0);
  Kernels().turn_pairs(row, u, n, out);
}

void ScaleAddRow(const float* x, float scale, const float* t, int64_t n, float* out, RowWrite w) {
  assert(n >= 0);
  Kernels().scale_add_row(x, scale, t, n, out, w);
}

void ScaleRow(const float* x, float scale, int64_t n, float* out, RowWrite w) {
  assert(n >= 0);
  Kernels().scale_row(x, scale, n, out, w);
}

void FillRow(float value, int64_t n, float* out, Stores stores) {
  assert(n >= 0);
  Kernels().fill_row(value, n, out, stores);
}

}  // namespace phasor::kernels

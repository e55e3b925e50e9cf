#include "engine/kernels/rotate_rows.h"

#include <cassert>
#include <cstdint>

#include "engine/kernels/kernel_table.h"

// The kernels of the chosen target (engine/cpu.h): rotate_rows_avx512.cc,
// rotate_rows_avx2.cc (both from rotate_rows_simd.inc) and
// rotate_rows_portable.cc, which all give the same bits.
namespace phasor::kernels {

void StreamFence() { Kernels().stream_fence(); }

void TurnRows(const float* a, const float* u, int64_t rows, int64_t n, PairSlots slots,
              const Gather* g, float* out, Stores stores) {
  assert(rows >= 0 && n >= 0 && n % 2 == 0 && out != a);
  assert(!g || g->count >= rows);
  Kernels().turn_rows(a, u, rows, n, slots, g, out, stores);
}

void RotateHeads(float* x, int64_t heads, int64_t stride, const float* c, const float* s,
                 int64_t half, PairSlots slots) {
  assert(heads >= 0 && half >= 0 && stride >= 2 * half);
  Kernels().rotate_heads(x, heads, stride, c, s, half, slots);
}

void TurnPairs(const double* row, const double* u, int64_t n, double* out) {
  assert(n >= 0 && n % 2 == 0);
  for (int64_t k = Kernels().turn_pairs(row, u, n, out); k < n; k += 2) {
    const double x = row[k], y = row[k + 1], c = u[k], s = u[k + 1];
    out[k] = x * c + y * s;
    out[k + 1] = y * c + x * -s;
  }
}

void ScaleAddRow(const float* x, float scale, const float* t, int64_t n, float* out, Stores stores,
                 Ahead ahead) {
  assert(n >= 0);
  Kernels().scale_add_row(x, scale, t, n, out, stores, ahead);
}

void ScaleRow(const float* x, float scale, int64_t n, float* out, Stores stores, Ahead ahead) {
  assert(n >= 0);
  Kernels().scale_row(x, scale, n, out, stores, ahead);
}

void FillRow(float value, int64_t n, float* out, Stores stores) {
  assert(n >= 0);
  Kernels().fill_row(value, n, out, stores);
}

}  // namespace phasor::kernels

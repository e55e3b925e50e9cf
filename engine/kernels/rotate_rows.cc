#include "engine/kernels/rotate_rows.h"

#include <cassert>
#include <cstdint>

#include "engine/kernels/kernel_table.h"

// The kernels of the chosen target (engine/cpu.h): rotate_rows_avx512.cc,
// rotate_rows_avx2.cc (both from rotate_rows_simd.inc) and
// rotate_rows_portable.cc, which all give the same bits.
namespace phasor::kernels {

void StreamFence() { Kernels().stream_fence(); }

void RotateRow(const float* a, const float* b, const float* c, const float* s, int64_t n,
               float* out, Stores stores) {
  assert(n >= 0 && out != a && out != b);
  Kernels().rotate_row(a, b, c, s, n, out, stores);
}

void RotatePairsRow(const float* a, const float* u, int64_t n, float* out, Stores stores) {
  assert(n >= 0 && n % 2 == 0 && out != a);
  Kernels().rotate_pairs_row(a, u, n, out, stores);
}

void RotatePairsRowAdd(const float* a, const float* u, const float* x, float scale, int64_t n,
                       float* out, Stores stores, Ahead ahead) {
  assert(n >= 0 && n % 2 == 0 && out != a);
  Kernels().rotate_pairs_row_add(a, u, x, scale, n, out, stores, ahead);
}

void RotatePairsRows(const float* a, const float* u, int64_t rows, int64_t n, const Gather* g,
                     float* out, Stores stores) {
  assert(rows >= 0 && n >= 0 && n % 2 == 0);
  assert(!g || g->count >= rows);
  Kernels().rotate_pairs_rows(a, u, rows, n, g, out, stores);
}

void TurnPairs(const double* row, const double* u, int64_t n, double* out) {
  assert(n >= 0 && n % 2 == 0);
  for (int64_t k = Kernels().turn_pairs(row, u, n, out); k < n; k += 2) {
    const double x = row[k], y = row[k + 1], c = u[k], s = u[k + 1];
    out[k] = x * c + y * s;
    out[k + 1] = y * c + x * -s;
  }
}

void RotateRowNaive(const float* a, const float* b, const float* c, const float* s, int64_t n,
                    float* out) {
  for (int64_t j = 0; j < n; ++j) out[j] = a[j] * c[j] + b[j] * s[j];
}

void RotateRowAdd(const float* a, const float* b, const float* c, const float* s, const float* x,
                  float scale, int64_t n, float* out, Stores stores, Ahead ahead) {
  assert(n >= 0 && out != a && out != b);
  Kernels().rotate_row_add(a, b, c, s, x, scale, n, out, stores, ahead);
}

void RotateRowAddNaive(const float* a, const float* b, const float* c, const float* s,
                       const float* x, float scale, int64_t n, float* out) {
  for (int64_t j = 0; j < n; ++j) out[j] = x[j] * scale + (a[j] * c[j] + b[j] * s[j]);
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

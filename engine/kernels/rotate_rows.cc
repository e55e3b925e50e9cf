#include "engine/kernels/rotate_rows.h"

#include <algorithm>
#include <cassert>
#include <cstdint>

#include "engine/tensor.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#define PHASOR_ROWS_AVX512 1
#else
#define PHASOR_ROWS_AVX512 0
#endif

namespace phasor::kernels {
namespace {

#if PHASOR_ROWS_AVX512
// out[k] for k < n: 16 at a time from vector(k), the tail from scalar(k). Both
// compute the same operations in the same order, so the bits do not depend on
// where a value falls or on the kind of store.
// ahead: rows of n floats to prefetch, a line of each per 16 values written.
template <class Vector, class Scalar>
void WriteRow(int64_t n, float* out, Stores stores, Ahead ahead, Vector vector, Scalar scalar) {
  int64_t k = 0;
  const auto fetch = [ahead](int64_t at) {
    if (ahead.far) _mm_prefetch(reinterpret_cast<const char*>(ahead.far + at), _MM_HINT_T1);
    if (ahead.next) _mm_prefetch(reinterpret_cast<const char*>(ahead.next + at), _MM_HINT_T0);
  };
  const uintptr_t address = reinterpret_cast<uintptr_t>(out);
  if (stores == Stores::kStreaming && address % sizeof(float) == 0) {
    // Ordinary stores up to the first cache line boundary, whole lines streamed.
    const int64_t head = std::min<int64_t>(n, (64 - address % 64) % 64 / sizeof(float));
    for (; k < head; ++k) out[k] = scalar(k);
    for (; k + 16 <= n; k += 16) {
      fetch(k);
      _mm512_stream_ps(out + k, vector(k));
    }
  } else {
    for (; k + 16 <= n; k += 16) {
      fetch(k);
      _mm512_storeu_ps(out + k, vector(k));
    }
  }
  if (k < n) fetch(n - 1);
  for (; k < n; ++k) out[k] = scalar(k);
}

inline __m512 Load(const float* p) { return _mm512_loadu_ps(p); }

// From u = (cos φ, sin φ) per pair: c = (cos φ, cos φ), s = (sin φ, -sin φ).
inline __m512 PairCos(__m512 u) { return _mm512_moveldup_ps(u); }
inline __m512 PairSin(__m512 u) {
  const __m512i odd_sign = _mm512_set_epi32(INT32_MIN, 0, INT32_MIN, 0, INT32_MIN, 0, INT32_MIN, 0,
                                            INT32_MIN, 0, INT32_MIN, 0, INT32_MIN, 0, INT32_MIN, 0);
  return _mm512_castsi512_ps(
      _mm512_xor_si512(_mm512_castps_si512(_mm512_movehdup_ps(u)), odd_sign));
}
// a with each (even, odd) pair swapped.
inline __m512 PairSwap(__m512 a) { return _mm512_permute_ps(a, 0xB1); }

// Streaming stores start at a cache line, after an ordinary-store head; the
// vector code needs that head to hold whole pairs, else it stores ordinarily.
inline Stores PairStores(const float* out, Stores stores) {
  return reinterpret_cast<uintptr_t>(out) % (2 * sizeof(float)) == 0 ? stores : Stores::kCached;
}
#endif

// The scalar c, s and b of value k of a pair row (the vector code's lanes).
inline float PairCosAt(const float* u, int64_t k) { return u[k & ~int64_t{1}]; }
inline float PairSinAt(const float* u, int64_t k) {
  const float s = u[k | 1];
  return (k & 1) ? -s : s;
}
inline float PairSwapAt(const float* a, int64_t k) { return a[k ^ 1]; }

}  // namespace

void StreamFence() {
#if PHASOR_ROWS_AVX512
  _mm_sfence();
#endif
}

void RotateRow(const float* a, const float* b, const float* c, const float* s, int64_t n,
               float* out, Stores stores) {
  assert(n >= 0 && out != a && out != b);
#if PHASOR_ROWS_AVX512
  WriteRow(
      n, out, stores, Ahead{},
      [&](int64_t k) {
        return _mm512_add_ps(_mm512_mul_ps(Load(a + k), Load(c + k)),
                             _mm512_mul_ps(Load(b + k), Load(s + k)));
      },
      [&](int64_t k) { return a[k] * c[k] + b[k] * s[k]; });
#else
  (void)stores;
  MapArray(out, n) =
      ConstMapArray(a, n) * ConstMapArray(c, n) + ConstMapArray(b, n) * ConstMapArray(s, n);
#endif
}

namespace {

// The pair kernels' bodies, inlined into the one-row and the block entry points.
inline void PairsRow(const float* a, const float* u, int64_t n, float* out, Stores stores) {
  const auto scalar = [&](int64_t k) {
    return a[k] * PairCosAt(u, k) + PairSwapAt(a, k) * PairSinAt(u, k);
  };
#if PHASOR_ROWS_AVX512
  WriteRow(
      n, out, PairStores(out, stores), Ahead{},
      [&](int64_t k) {
        const __m512 va = Load(a + k), vu = Load(u + k);
        return _mm512_add_ps(_mm512_mul_ps(va, PairCos(vu)),
                             _mm512_mul_ps(PairSwap(va), PairSin(vu)));
      },
      scalar);
#else
  (void)stores;
  for (int64_t k = 0; k < n; ++k) out[k] = scalar(k);
#endif
}

inline void PairsRowAdd(const float* a, const float* u, const float* x, float scale, int64_t n,
                        float* out, Stores stores, Ahead ahead) {
  // x·1 is x, bit for bit: the multiply is skipped for unscaled token rows.
  const auto scalar = [&](int64_t k) {
    const float rotated = a[k] * PairCosAt(u, k) + PairSwapAt(a, k) * PairSinAt(u, k);
    return (scale == 1.0f ? x[k] : x[k] * scale) + rotated;
  };
#if PHASOR_ROWS_AVX512
  const auto rotated = [&](int64_t k) {
    const __m512 va = Load(a + k), vu = Load(u + k);
    return _mm512_add_ps(_mm512_mul_ps(va, PairCos(vu)), _mm512_mul_ps(PairSwap(va), PairSin(vu)));
  };
  const Stores s = PairStores(out, stores);
  if (scale == 1.0f) {
    WriteRow(
        n, out, s, ahead, [&](int64_t k) { return _mm512_add_ps(Load(x + k), rotated(k)); },
        scalar);
    return;
  }
  const __m512 vscale = _mm512_set1_ps(scale);
  WriteRow(
      n, out, s, ahead,
      [&](int64_t k) { return _mm512_add_ps(_mm512_mul_ps(Load(x + k), vscale), rotated(k)); },
      scalar);
#else
  (void)stores;
  PrefetchRows(ahead, n);
  for (int64_t k = 0; k < n; ++k) out[k] = scalar(k);
#endif
}

}  // namespace

void RotatePairsRow(const float* a, const float* u, int64_t n, float* out, Stores stores) {
  assert(n >= 0 && n % 2 == 0 && out != a);
  PairsRow(a, u, n, out, stores);
}

void RotatePairsRowAdd(const float* a, const float* u, const float* x, float scale, int64_t n,
                       float* out, Stores stores, Ahead ahead) {
  assert(n >= 0 && n % 2 == 0 && out != a);
  PairsRowAdd(a, u, x, scale, n, out, stores, ahead);
}

void RotatePairsRows(const float* a, const float* u, int64_t rows, int64_t n, const Gather* g,
                     float* out, Stores stores) {
  assert(rows >= 0 && n >= 0 && n % 2 == 0);
  if (!g) {
    for (int64_t r = 0; r < rows; ++r) PairsRow(a, u + r * n, n, out + r * n, stores);
    return;
  }
  assert(g->count >= rows);
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = g->table + static_cast<int64_t>(g->ids[r]) * n;
    PairsRowAdd(a, u + r * n, x, g->scale, n, out + r * n, stores,
                AheadRows(g->table, g->ids, r, g->count, n));
  }
}

void TurnPairs(const double* row, const double* u, int64_t n, double* out) {
  assert(n >= 0 && n % 2 == 0);
  int64_t k = 0;
#if PHASOR_ROWS_AVX512
  const __m512i odd_sign = _mm512_set_epi64(INT64_MIN, 0, INT64_MIN, 0, INT64_MIN, 0, INT64_MIN, 0);
  for (; k + 8 <= n; k += 8) {
    const __m512d r = _mm512_loadu_pd(row + k), vu = _mm512_loadu_pd(u + k);
    const __m512d c = _mm512_movedup_pd(vu);  // (cos φ, cos φ)
    const __m512d s = _mm512_castsi512_pd(    // (sin φ, -sin φ)
        _mm512_xor_si512(_mm512_castpd_si512(_mm512_permute_pd(vu, 0xFF)), odd_sign));
    _mm512_storeu_pd(
        out + k, _mm512_add_pd(_mm512_mul_pd(r, c), _mm512_mul_pd(_mm512_permute_pd(r, 0x55), s)));
  }
#endif
  for (; k < n; k += 2) {
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
#if PHASOR_ROWS_AVX512
  const __m512 vscale = _mm512_set1_ps(scale);
  WriteRow(
      n, out, stores, ahead,
      [&](int64_t k) {
        return _mm512_add_ps(_mm512_mul_ps(Load(x + k), vscale),
                             _mm512_add_ps(_mm512_mul_ps(Load(a + k), Load(c + k)),
                                           _mm512_mul_ps(Load(b + k), Load(s + k))));
      },
      [&](int64_t k) { return x[k] * scale + (a[k] * c[k] + b[k] * s[k]); });
#else
  (void)stores;
  PrefetchRows(ahead, n);
  MapArray(out, n) = ConstMapArray(x, n) * scale + (ConstMapArray(a, n) * ConstMapArray(c, n) +
                                                    ConstMapArray(b, n) * ConstMapArray(s, n));
#endif
}

void RotateRowAddNaive(const float* a, const float* b, const float* c, const float* s,
                       const float* x, float scale, int64_t n, float* out) {
  for (int64_t j = 0; j < n; ++j) out[j] = x[j] * scale + (a[j] * c[j] + b[j] * s[j]);
}

void ScaleAddRow(const float* x, float scale, const float* t, int64_t n, float* out, Stores stores,
                 Ahead ahead) {
  assert(n >= 0);
  if (x == nullptr) {  // a copy of t
    ScaleRow(t, 1.0f, n, out, stores, ahead);
    return;
  }
#if PHASOR_ROWS_AVX512
  const __m512 vscale = _mm512_set1_ps(scale);
  WriteRow(
      n, out, stores, ahead,
      [&](int64_t k) { return _mm512_add_ps(_mm512_mul_ps(Load(x + k), vscale), Load(t + k)); },
      [&](int64_t k) { return x[k] * scale + t[k]; });
#else
  (void)stores;
  PrefetchRows(ahead, n);
  MapArray(out, n) = ConstMapArray(x, n) * scale + ConstMapArray(t, n);
#endif
}

void ScaleRow(const float* x, float scale, int64_t n, float* out, Stores stores, Ahead ahead) {
  assert(n >= 0);
#if PHASOR_ROWS_AVX512
  if (scale == 1.0f) {
    WriteRow(
        n, out, stores, ahead, [&](int64_t k) { return Load(x + k); },
        [&](int64_t k) { return x[k]; });
    return;
  }
  const __m512 vscale = _mm512_set1_ps(scale);
  WriteRow(
      n, out, stores, ahead, [&](int64_t k) { return _mm512_mul_ps(Load(x + k), vscale); },
      [&](int64_t k) { return x[k] * scale; });
#else
  (void)stores;
  PrefetchRows(ahead, n);
  if (scale == 1.0f) {
    MapArray(out, n) = ConstMapArray(x, n);  // vector loads and stores, as the PE kernels
    return;
  }
  MapArray(out, n) = ConstMapArray(x, n) * scale;
#endif
}

void FillRow(float value, int64_t n, float* out, Stores stores) {
  assert(n >= 0);
#if PHASOR_ROWS_AVX512
  const __m512 v = _mm512_set1_ps(value);
  WriteRow(
      n, out, stores, Ahead{}, [&](int64_t) { return v; }, [&](int64_t) { return value; });
#else
  (void)stores;
  MapArray(out, n) = value;
#endif
}

}  // namespace phasor::kernels

// The row kernels of rotate_rows.h for AVX-512 (built with -mavx512f and
// friends): 16 floats a vector, rotate_rows_simd.inc's bodies. Only
// intrinsics and this file's own functions: nothing here may be shared with
// code built for another target.
#include <immintrin.h>

#include <cstdint>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx512 {
namespace {

using V = __m512;
constexpr int64_t kW = 16;
inline V Load(const float* p) { return _mm512_loadu_ps(p); }
inline void Store(float* p, V v) { _mm512_storeu_ps(p, v); }
inline void Stream(float* p, V v) { _mm512_stream_ps(p, v); }
inline V Add(V a, V b) { return _mm512_add_ps(a, b); }
inline V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
inline V Set1(float x) { return _mm512_set1_ps(x); }

// From u = (cos φ, sin φ) per pair: c = (cos φ, cos φ), s = (sin φ, -sin φ).
inline V PairCos(V u) { return _mm512_moveldup_ps(u); }
inline V PairSin(V u) {
  const __m512i odd_sign = _mm512_set_epi32(INT32_MIN, 0, INT32_MIN, 0, INT32_MIN, 0, INT32_MIN, 0,
                                            INT32_MIN, 0, INT32_MIN, 0, INT32_MIN, 0, INT32_MIN, 0);
  return _mm512_castsi512_ps(
      _mm512_xor_si512(_mm512_castps_si512(_mm512_movehdup_ps(u)), odd_sign));
}
// a with each (even, odd) pair swapped.
inline V PairSwap(V a) { return _mm512_permute_ps(a, 0xB1); }

}  // namespace

#include "engine/kernels/rotate_rows_simd.inc"

int64_t TurnPairs(const double* row, const double* u, int64_t n, double* out) {
  int64_t k = 0;
  const __m512i odd_sign = _mm512_set_epi64(INT64_MIN, 0, INT64_MIN, 0, INT64_MIN, 0, INT64_MIN, 0);
  for (; k + 8 <= n; k += 8) {
    const __m512d r = _mm512_loadu_pd(row + k), vu = _mm512_loadu_pd(u + k);
    const __m512d c = _mm512_movedup_pd(vu);  // (cos φ, cos φ)
    const __m512d s = _mm512_castsi512_pd(    // (sin φ, -sin φ)
        _mm512_xor_si512(_mm512_castpd_si512(_mm512_permute_pd(vu, 0xFF)), odd_sign));
    _mm512_storeu_pd(
        out + k, _mm512_add_pd(_mm512_mul_pd(r, c), _mm512_mul_pd(_mm512_permute_pd(r, 0x55), s)));
  }
  return k;
}

}  // namespace phasor::kernels::avx512

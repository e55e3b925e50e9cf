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
inline V Sub(V a, V b) { return _mm512_sub_ps(a, b); }
inline V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
inline V Set1(float x) { return _mm512_set1_ps(x); }
inline V SwapPairs(V x) { return _mm512_permute_ps(x, 0xB1); }  // (x1, x0, x3, x2, ...)

// (x0, y0, x1, y1, ...): pairs 0-7 and 8-15 of x and y.
inline V InterleaveLow(V x, V y) {
  const __m512i idx = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  return _mm512_permutex2var_ps(x, idx, y);
}
inline V InterleaveHigh(V x, V y) {
  const __m512i idx =
      _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
  return _mm512_permutex2var_ps(x, idx, y);
}

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

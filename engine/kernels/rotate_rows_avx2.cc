// The row kernels of rotate_rows.h for AVX2 (built with -mavx2 -mfma, used
// without fused multiply-adds): 8 floats a vector, rotate_rows_simd.inc's
// bodies. Only intrinsics and this file's own functions: nothing here may be
// shared with code built for another target.
#include <immintrin.h>

#include <cstdint>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx2 {
namespace {

using V = __m256;
constexpr int64_t kW = 8;
inline V Load(const float* p) { return _mm256_loadu_ps(p); }
inline void Store(float* p, V v) { _mm256_storeu_ps(p, v); }
inline void Stream(float* p, V v) { _mm256_stream_ps(p, v); }
inline V Add(V a, V b) { return _mm256_add_ps(a, b); }
inline V Sub(V a, V b) { return _mm256_sub_ps(a, b); }
inline V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
inline V Set1(float x) { return _mm256_set1_ps(x); }
inline V SwapPairs(V x) { return _mm256_permute_ps(x, 0xB1); }  // (x1, x0, x3, x2, ...)

// (x0, y0, x1, y1, ...): pairs 0-3 and 4-7 of x and y (unpack works within
// 128-bit lanes; the lane permute puts the halves in order).
inline V InterleaveLow(V x, V y) {
  return _mm256_permute2f128_ps(_mm256_unpacklo_ps(x, y), _mm256_unpackhi_ps(x, y), 0x20);
}
inline V InterleaveHigh(V x, V y) {
  return _mm256_permute2f128_ps(_mm256_unpacklo_ps(x, y), _mm256_unpackhi_ps(x, y), 0x31);
}

}  // namespace

#include "engine/kernels/rotate_rows_simd.inc"

int64_t TurnPairs(const double* row, const double* u, int64_t n, double* out) {
  int64_t k = 0;
  const __m256d odd_sign = _mm256_castsi256_pd(_mm256_set_epi64x(INT64_MIN, 0, INT64_MIN, 0));
  for (; k + 4 <= n; k += 4) {
    const __m256d r = _mm256_loadu_pd(row + k), vu = _mm256_loadu_pd(u + k);
    const __m256d c = _mm256_movedup_pd(vu);                                // (cos φ, cos φ)
    const __m256d s = _mm256_xor_pd(_mm256_permute_pd(vu, 0xF), odd_sign);  // (sin φ, -sin φ)
    _mm256_storeu_pd(
        out + k, _mm256_add_pd(_mm256_mul_pd(r, c), _mm256_mul_pd(_mm256_permute_pd(r, 0x5), s)));
  }
  return k;
}

}  // namespace phasor::kernels::avx2

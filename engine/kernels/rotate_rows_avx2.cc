// The row kernels of rotate_rows.h for AVX2 (built with -mavx2 -mfma, used
// without fused multiply-adds): rotate_rows_simd.inc's bodies over
// simd_avx2.inc's vectors. Only intrinsics and this file's own functions: nothing here may be
// shared with code built for another target.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx2 {
namespace {
#include "engine/kernels/simd_avx2.inc"
#include "engine/kernels/turn_pairs_scalar.inc"
}  // namespace

#include "engine/kernels/rotate_rows_simd.inc"

void TurnPairs(const double* row, const double* u, int64_t n, double* out) {
  int64_t k = 0;
  const __m256d odd_sign = _mm256_castsi256_pd(_mm256_set_epi64x(INT64_MIN, 0, INT64_MIN, 0));
  for (; k + 4 <= n; k += 4) {
    const __m256d r = _mm256_loadu_pd(row + k), vu = _mm256_loadu_pd(u + k);
    const __m256d c = _mm256_movedup_pd(vu);                                // (cos φ, cos φ)
    const __m256d s = _mm256_xor_pd(_mm256_permute_pd(vu, 0xF), odd_sign);  // (sin φ, -sin φ)
    _mm256_storeu_pd(
        out + k, _mm256_add_pd(_mm256_mul_pd(r, c), _mm256_mul_pd(_mm256_permute_pd(r, 0x5), s)));
  }
  TurnPairsFrom(k, row, u, n, out);
}

}  // namespace phasor::kernels::avx2

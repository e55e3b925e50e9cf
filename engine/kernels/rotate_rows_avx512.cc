// The row kernels of rotate_rows.h for AVX-512 (built with -mavx512f and
// friends): rotate_rows_simd.inc's bodies over simd_avx512.inc's vectors. Only
// intrinsics and this file's own functions: nothing here may be shared with
// code built for another target.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx512 {
namespace {
#include "engine/kernels/simd_avx512.inc"
#include "engine/kernels/turn_pairs_scalar.inc"
}  // namespace

#include "engine/kernels/rotate_rows_simd.inc"

void TurnPairs(const double* row, const double* u, int64_t n, double* out) {
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
  TurnPairsFrom(k, row, u, n, out);
}

}  // namespace phasor::kernels::avx512

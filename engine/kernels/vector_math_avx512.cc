// ExpShifted's vectors for AVX-512 (built with -mavx512f and friends): the
// vector form of vector_math.cc's ExpScalar, operation for operation (no fused
// multiply-adds), so a value gives the same bits in either. Masked loads and
// stores: it does the whole row. Only intrinsics and this file's own
// functions: nothing here may be shared with code built for another target.
#include <immintrin.h>

#include <cstdint>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx512 {
namespace {
#include "engine/kernels/exp_constants.inc"
}  // namespace

int64_t ExpShifted(const float* x, float shift, int64_t n, float* out) {
  int64_t j = 0;
  const __m512 s = _mm512_set1_ps(shift), lo = _mm512_set1_ps(kExpMin),
               hi = _mm512_set1_ps(kExpMax), neg_inf = _mm512_set1_ps(kNegInf);
  for (; j < n; j += 16) {
    const __mmask16 m =
        n - j >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << (n - j)) - 1);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + j);
    const __m512 d = _mm512_sub_ps(v, s);
    // max_ps(NaN, lo) is lo: NaN lanes are put back at the end, as ExpScalar keeps them.
    const __mmask16 nan = _mm512_cmp_ps_mask(d, d, _CMP_UNORD_Q);
    __m512 t = _mm512_min_ps(_mm512_max_ps(d, lo), hi);
    const __m512 fx = _mm512_roundscale_ps(
        _mm512_add_ps(_mm512_mul_ps(t, _mm512_set1_ps(kLog2e)), _mm512_set1_ps(0.5f)),
        _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    t = _mm512_sub_ps(t, _mm512_mul_ps(fx, _mm512_set1_ps(kLn2Hi)));
    t = _mm512_sub_ps(t, _mm512_mul_ps(fx, _mm512_set1_ps(kLn2Lo)));
    const __m512 z = _mm512_mul_ps(t, t);
    __m512 y = _mm512_set1_ps(kExpP[0]);
    for (int i = 1; i < 6; ++i) {
      y = _mm512_add_ps(_mm512_mul_ps(y, t), _mm512_set1_ps(kExpP[i]));
    }
    y = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(y, z), t), _mm512_set1_ps(1.0f));
    const __m512i e =
        _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(fx), _mm512_set1_epi32(127)), 23);
    y = _mm512_mask_blend_ps(nan, _mm512_mul_ps(y, _mm512_castsi512_ps(e)), d);
    const __mmask16 masked = _mm512_cmp_ps_mask(v, neg_inf, _CMP_EQ_OQ);
    _mm512_mask_storeu_ps(out + j, m, _mm512_mask_blend_ps(masked, y, _mm512_setzero_ps()));
  }
  return n;
}

}  // namespace phasor::kernels::avx512

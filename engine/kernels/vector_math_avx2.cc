// ExpShifted's vectors for AVX2 (built with -mavx2 -mfma, used without fused
// multiply-adds): the vector form of vector_math.cc's ExpScalar, operation for
// operation, so a value gives the same bits in either and on every target.
// Whole vectors of 8 only; the caller does the tail. Only intrinsics and this
// file's own functions: nothing here may be shared with code built for another
// target.
#include <immintrin.h>

#include <cstdint>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx2 {
namespace {
#include "engine/kernels/exp_constants.inc"
}  // namespace

int64_t ExpShifted(const float* x, float shift, int64_t n, float* out) {
  const __m256 s = _mm256_set1_ps(shift), lo = _mm256_set1_ps(kExpMin),
               hi = _mm256_set1_ps(kExpMax), neg_inf = _mm256_set1_ps(kNegInf);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 v = _mm256_loadu_ps(x + j);
    const __m256 d = _mm256_sub_ps(v, s);
    // max_ps(NaN, lo) is lo: NaN lanes are put back at the end, as ExpScalar keeps them.
    const __m256 nan = _mm256_cmp_ps(d, d, _CMP_UNORD_Q);
    __m256 t = _mm256_min_ps(_mm256_max_ps(d, lo), hi);
    const __m256 fx = _mm256_round_ps(
        _mm256_add_ps(_mm256_mul_ps(t, _mm256_set1_ps(kLog2e)), _mm256_set1_ps(0.5f)),
        _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    t = _mm256_sub_ps(t, _mm256_mul_ps(fx, _mm256_set1_ps(kLn2Hi)));
    t = _mm256_sub_ps(t, _mm256_mul_ps(fx, _mm256_set1_ps(kLn2Lo)));
    const __m256 z = _mm256_mul_ps(t, t);
    __m256 y = _mm256_set1_ps(kExpP[0]);
    for (int i = 1; i < 6; ++i) {
      y = _mm256_add_ps(_mm256_mul_ps(y, t), _mm256_set1_ps(kExpP[i]));
    }
    y = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(y, z), t), _mm256_set1_ps(1.0f));
    const __m256i e =
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(fx), _mm256_set1_epi32(127)), 23);
    y = _mm256_blendv_ps(_mm256_mul_ps(y, _mm256_castsi256_ps(e)), d, nan);
    const __m256 masked = _mm256_cmp_ps(v, neg_inf, _CMP_EQ_OQ);
    _mm256_storeu_ps(out + j, _mm256_blendv_ps(y, _mm256_setzero_ps(), masked));
  }
  return j;
}

}  // namespace phasor::kernels::avx2

// The vector math kernels for AVX2 (built with -mavx2 -mfma): ExpShifted's exp
// is the vector form of ExpScalar (exp_scalar.inc), operation for operation
// (no fused multiply-adds), ExpBf16's the same formula in fused multiply-adds
// (its results are rounded to bfloat16), and Bf16Round's
// rounding that of gemm_bf16.cc's RoundBits, in integers: ExpShifted and
// Bf16Round give the same bits here as the scalar code and on every target.
// Whole vectors only; the caller does the tail. Only intrinsics and this file's own
// functions: nothing here may be shared with code built for another target.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx2 {
namespace {
#include "engine/kernels/exp_scalar.inc"

// a·b + c: one rounding with kFused (a fused multiply-add), two without.
template <bool kFused>
inline __m256 MulAdd(__m256 a, __m256 b, __m256 c) {
  return kFused ? _mm256_fmadd_ps(a, b, c) : _mm256_add_ps(_mm256_mul_ps(a, b), c);
}
// c - a·b, likewise.
template <bool kFused>
inline __m256 NegMulAdd(__m256 a, __m256 b, __m256 c) {
  return kFused ? _mm256_fnmadd_ps(a, b, c) : _mm256_sub_ps(c, _mm256_mul_ps(a, b));
}

// exp(v - s) per lane, as avx512's (kFused: for ExpBf16 only).
template <bool kFused>
inline __m256 Exp(__m256 v, __m256 s) {
  const __m256 d = _mm256_sub_ps(v, s);
  // max_ps(NaN, lo) is lo: NaN lanes are put back at the end, as ExpScalar keeps them.
  const __m256 nan = _mm256_cmp_ps(d, d, _CMP_UNORD_Q);
  __m256 t = _mm256_min_ps(_mm256_max_ps(d, _mm256_set1_ps(kExpMin)), _mm256_set1_ps(kExpMax));
  const __m256 fx = _mm256_round_ps(MulAdd<kFused>(t, _mm256_set1_ps(kLog2e), _mm256_set1_ps(0.5f)),
                                    _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  t = NegMulAdd<kFused>(fx, _mm256_set1_ps(kLn2Hi), t);
  t = NegMulAdd<kFused>(fx, _mm256_set1_ps(kLn2Lo), t);
  const __m256 z = _mm256_mul_ps(t, t);
  __m256 y = _mm256_set1_ps(kExpP[0]);
  for (int i = 1; i < 6; ++i) y = MulAdd<kFused>(y, t, _mm256_set1_ps(kExpP[i]));
  y = _mm256_add_ps(MulAdd<kFused>(y, z, t), _mm256_set1_ps(1.0f));
  const __m256i e =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(fx), _mm256_set1_epi32(127)), 23);
  y = _mm256_blendv_ps(_mm256_mul_ps(y, _mm256_castsi256_ps(e)), d, nan);
  const __m256 masked = _mm256_cmp_ps(v, _mm256_set1_ps(kNegInf), _CMP_EQ_OQ);
  return _mm256_blendv_ps(y, _mm256_setzero_ps(), masked);
}

// Float bits to bfloat16 bits (in the low half of each lane), as avx512's.
inline __m256i RoundBits(__m256i u) {
  const __m256i one = _mm256_set1_epi32(1), half = _mm256_set1_epi32(0x7FFF);
  const __m256i abs_mask = _mm256_set1_epi32(0x7FFFFFFF), inf = _mm256_set1_epi32(0x7F800000);
  const __m256i top = _mm256_srli_epi32(u, 16);
  const __m256i rounded = _mm256_srli_epi32(
      _mm256_add_epi32(u, _mm256_add_epi32(half, _mm256_and_si256(top, one))), 16);
  const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, abs_mask), inf);
  return _mm256_blendv_epi8(rounded, _mm256_or_si256(top, _mm256_set1_epi32(0x40)), nan);
}

// Two vectors of bfloat16 bits stored as 16 values (packus works within
// 128-bit lanes: [a0-3 b0-3 a4-7 b4-7], reordered).
inline void Store16(__m256i a, __m256i b, uint16_t* out) {
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), packed);
}

}  // namespace

int64_t ExpShifted(const float* x, float shift, int64_t n, float* out) {
  const __m256 s = _mm256_set1_ps(shift);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) _mm256_storeu_ps(out + j, Exp<false>(_mm256_loadu_ps(x + j), s));
  return j;
}

int64_t Bf16Round(const float* x, int64_t n, uint16_t* out) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    Store16(RoundBits(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i))),
            RoundBits(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i + 8))), out + i);
  }
  return i;
}

int64_t ExpBf16(const float* x, float shift, int64_t n, uint16_t* out, float* sum) {
  const __m256 s = _mm256_set1_ps(shift);
  __m256 acc = _mm256_setzero_ps();
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m256i a = RoundBits(_mm256_castps_si256(Exp<true>(_mm256_loadu_ps(x + j), s)));
    const __m256i b = RoundBits(_mm256_castps_si256(Exp<true>(_mm256_loadu_ps(x + j + 8), s)));
    Store16(a, b, out + j);
    acc = _mm256_add_ps(acc, _mm256_castsi256_ps(_mm256_slli_epi32(a, 16)));
    acc = _mm256_add_ps(acc, _mm256_castsi256_ps(_mm256_slli_epi32(b, 16)));
  }
  // The lanes in a fixed tree: 8 -> 4 -> 2 -> 1.
  __m128 q = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
  q = _mm_add_ps(q, _mm_movehl_ps(q, q));
  q = _mm_add_ss(q, _mm_movehdup_ps(q));
  *sum = _mm_cvtss_f32(q);
  return j;
}

int64_t RowMax(const float* x, int64_t n, float* max) {
  if (n < 8) return 0;
  __m256 m = _mm256_loadu_ps(x);
  int64_t j = 8;
  for (; j + 8 <= n; j += 8) m = _mm256_max_ps(m, _mm256_loadu_ps(x + j));
  __m128 q = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  q = _mm_max_ps(q, _mm_movehl_ps(q, q));
  q = _mm_max_ss(q, _mm_movehdup_ps(q));
  *max = std::max(*max, _mm_cvtss_f32(q));
  return j;
}

}  // namespace phasor::kernels::avx2

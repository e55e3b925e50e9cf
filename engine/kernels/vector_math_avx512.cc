// The vector math kernels for AVX-512 (built with -mavx512f and friends):
// ExpShifted's exp is the vector form of ExpScalar (exp_scalar.inc), operation
// for operation (no fused multiply-adds), ExpBf16's the same formula in fused
// multiply-adds (its results are rounded to bfloat16), and Bf16Round's
// rounding that of gemm_bf16.cc's RoundBits, in integers: ExpShifted and
// Bf16Round give the same bits here as the scalar code. Each does the whole
// row: whole vectors, then the tail with masked loads and stores. Only
// intrinsics and this file's own functions: nothing here may be shared with
// code built for another target.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx512 {
namespace {
#include "engine/kernels/exp_scalar.inc"

// The lanes j < n of a 16-lane vector.
inline __mmask16 Lanes(int64_t n) {
  return n >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << n) - 1);
}

// a·b + c: one rounding with kFused (a fused multiply-add), two without.
template <bool kFused>
inline __m512 MulAdd(__m512 a, __m512 b, __m512 c) {
  return kFused ? _mm512_fmadd_ps(a, b, c) : _mm512_add_ps(_mm512_mul_ps(a, b), c);
}
// c - a·b, likewise.
template <bool kFused>
inline __m512 NegMulAdd(__m512 a, __m512 b, __m512 c) {
  return kFused ? _mm512_fnmadd_ps(a, b, c) : _mm512_sub_ps(c, _mm512_mul_ps(a, b));
}

// exp(v - s) per lane; exactly 0 where v = -inf, NaN where v - s is NaN.
// Without kFused, ExpScalar's operations and bits; with it, the same formula
// in fused multiply-adds (about 1 ulp still, in fewer operations), for
// ExpBf16, whose results are rounded to bfloat16 anyway.
template <bool kFused>
inline __m512 Exp(__m512 v, __m512 s) {
  const __m512 d = _mm512_sub_ps(v, s);
  // max_ps(NaN, lo) is lo: NaN lanes are put back at the end, as ExpScalar keeps them.
  const __mmask16 nan = _mm512_cmp_ps_mask(d, d, _CMP_UNORD_Q);
  __m512 t = _mm512_min_ps(_mm512_max_ps(d, _mm512_set1_ps(kExpMin)), _mm512_set1_ps(kExpMax));
  const __m512 fx =
      _mm512_roundscale_ps(MulAdd<kFused>(t, _mm512_set1_ps(kLog2e), _mm512_set1_ps(0.5f)),
                           _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  t = NegMulAdd<kFused>(fx, _mm512_set1_ps(kLn2Hi), t);
  t = NegMulAdd<kFused>(fx, _mm512_set1_ps(kLn2Lo), t);
  const __m512 z = _mm512_mul_ps(t, t);
  __m512 y = _mm512_set1_ps(kExpP[0]);
  for (int i = 1; i < 6; ++i) y = MulAdd<kFused>(y, t, _mm512_set1_ps(kExpP[i]));
  y = _mm512_add_ps(MulAdd<kFused>(y, z, t), _mm512_set1_ps(1.0f));
  const __m512i e =
      _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(fx), _mm512_set1_epi32(127)), 23);
  y = _mm512_mask_blend_ps(nan, _mm512_mul_ps(y, _mm512_castsi512_ps(e)), d);
  const __mmask16 masked = _mm512_cmp_ps_mask(v, _mm512_set1_ps(kNegInf), _CMP_EQ_OQ);
  return _mm512_mask_blend_ps(masked, y, _mm512_setzero_ps());
}

// Float bits to bfloat16 bits (in the low half of each lane): u + 0x7FFF +
// the kept part's last bit, then the top half (ties to even); a NaN kept and
// made quiet.
inline __m512i RoundBits(__m512i u) {
  const __m512i top = _mm512_srli_epi32(u, 16);
  const __m512i rounded = _mm512_srli_epi32(
      _mm512_add_epi32(u, _mm512_add_epi32(_mm512_set1_epi32(0x7FFF),
                                           _mm512_and_si512(top, _mm512_set1_epi32(1)))),
      16);
  const __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF)),
                                                _mm512_set1_epi32(0x7F800000));
  return _mm512_mask_blend_epi32(nan, rounded, _mm512_or_si512(top, _mm512_set1_epi32(0x40)));
}

// The low halves of 16 lanes stored as 16 bfloat16 values, the first n only
// (vpmovdw to memory is slow on some cores: narrowed in registers instead).
inline void Store16(__m512i bits, int64_t n, uint16_t* out) {
  const __m256i narrow = _mm512_cvtepi32_epi16(bits);
  if (n >= 16) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), narrow);
  } else {
    _mm256_mask_storeu_epi16(out, Lanes(n), narrow);
  }
}

}  // namespace

int64_t ExpShifted(const float* x, float shift, int64_t n, float* out) {
  const __m512 s = _mm512_set1_ps(shift);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) _mm512_storeu_ps(out + j, Exp<false>(_mm512_loadu_ps(x + j), s));
  if (j < n) {  // masked loads cost more than plain ones: the tail only
    const __mmask16 m = Lanes(n - j);
    _mm512_mask_storeu_ps(out + j, m, Exp<false>(_mm512_maskz_loadu_ps(m, x + j), s));
  }
  return n;
}

int64_t Bf16Round(const float* x, int64_t n, uint16_t* out) {
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) Store16(RoundBits(_mm512_loadu_si512(x + j)), 16, out + j);
  if (j < n) Store16(RoundBits(_mm512_maskz_loadu_epi32(Lanes(n - j), x + j)), n - j, out + j);
  return n;
}

int64_t ExpBf16(const float* x, float shift, int64_t n, uint16_t* out, float* sum) {
  const __m512 s = _mm512_set1_ps(shift);
  __m512 acc = _mm512_setzero_ps(), acc2 = _mm512_setzero_ps();
  int64_t j = 0;
  // Two vectors a step, into two sums: the steps' long exp chains overlap.
  for (; j + 32 <= n; j += 32) {
    const __m512i a = RoundBits(_mm512_castps_si512(Exp<true>(_mm512_loadu_ps(x + j), s)));
    const __m512i b = RoundBits(_mm512_castps_si512(Exp<true>(_mm512_loadu_ps(x + j + 16), s)));
    Store16(a, 16, out + j);
    Store16(b, 16, out + j + 16);
    acc = _mm512_add_ps(acc, _mm512_castsi512_ps(_mm512_slli_epi32(a, 16)));
    acc2 = _mm512_add_ps(acc2, _mm512_castsi512_ps(_mm512_slli_epi32(b, 16)));
  }
  acc = _mm512_add_ps(acc, acc2);
  for (; j + 16 <= n; j += 16) {
    const __m512i bits = RoundBits(_mm512_castps_si512(Exp<true>(_mm512_loadu_ps(x + j), s)));
    Store16(bits, 16, out + j);
    acc = _mm512_add_ps(acc, _mm512_castsi512_ps(_mm512_slli_epi32(bits, 16)));
  }
  if (j < n) {
    const __mmask16 m = Lanes(n - j);
    const __m512i bits =
        RoundBits(_mm512_castps_si512(Exp<true>(_mm512_maskz_loadu_ps(m, x + j), s)));
    Store16(bits, n - j, out + j);
    acc = _mm512_mask_add_ps(acc, m, acc, _mm512_castsi512_ps(_mm512_slli_epi32(bits, 16)));
  }
  // The lanes in a fixed tree: 16 -> 8 -> 4 -> 2 -> 1.
  __m256 h = _mm256_add_ps(_mm512_extractf32x8_ps(acc, 0), _mm512_extractf32x8_ps(acc, 1));
  __m128 q = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
  q = _mm_add_ps(q, _mm_movehl_ps(q, q));
  q = _mm_add_ss(q, _mm_movehdup_ps(q));
  *sum = _mm_cvtss_f32(q);
  return n;
}

int64_t RowMax(const float* x, int64_t n, float* max) {
  const __m512 neg_inf = _mm512_set1_ps(kNegInf);
  __m512 m = neg_inf;
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) m = _mm512_max_ps(m, _mm512_loadu_ps(x + j));
  if (j < n) m = _mm512_max_ps(m, _mm512_mask_loadu_ps(neg_inf, Lanes(n - j), x + j));
  const __m256 h = _mm256_max_ps(_mm512_extractf32x8_ps(m, 0), _mm512_extractf32x8_ps(m, 1));
  __m128 q = _mm_max_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
  q = _mm_max_ps(q, _mm_movehl_ps(q, q));
  q = _mm_max_ss(q, _mm_movehdup_ps(q));
  *max = std::max(*max, _mm_cvtss_f32(q));
  return n;
}

}  // namespace phasor::kernels::avx512

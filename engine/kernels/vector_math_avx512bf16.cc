// ExpBf16 for AVX-512 CPUs with AVX512-BF16 (built with the avx512 flags and
// -mavx512bf16; engine/cpu.cc takes it only on such CPUs): exp_bf16_simd.inc's
// body, as the avx512 target's, with the rounding to bfloat16 done by
// vcvtneps2bf16 instead of in integers. Only intrinsics and the shared
// bodies: nothing here may be shared with code built for another target.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx512bf16 {
namespace {
#include "engine/bfloat16_bits.inc"
#include "engine/kernels/exp_scalar.inc"
#include "engine/kernels/simd_avx512.inc"

constexpr int kExpBf16Sums = 2;  // as the avx512 target's
constexpr bool kExpBf16MaskedTail = true;

// StoreBf16 of exp_bf16_simd.inc. vcvtneps2bf16 rounds to nearest even and
// keeps a NaN a quiet NaN, as BFloat16RoundBits, but takes a subnormal for
// zero. ExpShort never gives one: its argument is clamped to -87.33654, where
// the reduction leaves r > 0 and 2^-126 · exp(r) is normal, and -inf gives
// exactly 0.
inline V StoreBf16(V e, uint16_t* out, int64_t n) {
  const __m256i half = reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(e));  // [16] bfloat16
  if (n >= kW) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), half);
  } else {
    _mm256_mask_storeu_epi16(out, Lanes(n), half);
  }
  return FromBits(_mm512_slli_epi32(_mm512_cvtepu16_epi32(half), 16));
}

}  // namespace

#include "engine/kernels/exp_bf16_simd.inc"

}  // namespace phasor::kernels::avx512bf16

// The binary16 conversion for AVX-512 (built with -mavx512f and friends):
// vcvtph2ps (AVX-512F) 16 values at a time. It quiets a signalling NaN, so
// the lanes with exponent 31 take their bits from the integer form instead
// (sign, all-ones exponent, mantissa moved up: what HalfToFloat gives).
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx512 {
namespace {
#include "engine/kernels/half_bits.inc"
}  // namespace

void HalfToFloatRow(const uint16_t* h, int64_t n, float* out) {
  const __m512i exponent_mask = _mm512_set1_epi32(0x7c00);
  const __m512i sign_mask = _mm512_set1_epi32(0x8000);
  const __m512i mantissa_mask = _mm512_set1_epi32(0x03ff);
  const __m512i all_ones = _mm512_set1_epi32(0x7f800000);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m256i half = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h + j));
    const __m512 converted = _mm512_cvtph_ps(half);
    const __m512i wide = _mm512_cvtepu16_epi32(half);
    const __mmask16 special =
        _mm512_cmpeq_epi32_mask(_mm512_and_si512(wide, exponent_mask), exponent_mask);
    const __m512i kept = _mm512_or_si512(
        _mm512_or_si512(_mm512_slli_epi32(_mm512_and_si512(wide, sign_mask), 16), all_ones),
        _mm512_slli_epi32(_mm512_and_si512(wide, mantissa_mask), 13));
    _mm512_storeu_ps(out + j, _mm512_mask_mov_ps(converted, special, _mm512_castsi512_ps(kept)));
  }
  for (; j < n; ++j) {
    const uint32_t bits = HalfToFloatBits(h[j]);
    std::memcpy(&out[j], &bits, 4);
  }
}

}  // namespace phasor::kernels::avx512

// The bfloat16 product's panel kernel for AVX2 + FMA (built with -mavx2
// -mfma): bfloat16 widened to float (a shift by 16 bits, exact), then the
// avx2 float product itself (GemmPanel, gemm_avx2.cc: fused multiply-adds in
// k order), in gemm_bf16_widening.inc's chunks. Widening in the product's loop
// would cost two integer operations per 16 weights on every row tile,
// competing with the multiply-adds for the same ports. Only intrinsics, this
// file's own functions and the avx2 target's kernels: nothing here may be
// shared with code built for another target.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx2 {
namespace {

#include "engine/bfloat16_bits.inc"

void WidenPairs(const uint16_t* w, int64_t n_pairs, float* wf) {
  const __m256i high = _mm256_set1_epi32(static_cast<int32_t>(0xFFFF0000u));
  for (int64_t i = 0; i < n_pairs; ++i, w += 2 * 32) {
    for (int g = 0; g < 4; ++g) {
      // 8 columns x the pair (2i, 2i + 1) to the rows 2i and 2i + 1 of wf.
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 16 * g));
      _mm256_store_ps(wf + 2 * i * 32 + 8 * g, _mm256_castsi256_ps(_mm256_slli_epi32(v, 16)));
      _mm256_store_ps(wf + (2 * i + 1) * 32 + 8 * g,
                      _mm256_castsi256_ps(_mm256_and_si256(v, high)));
    }
  }
}

void WidenRows(const uint16_t* a, int64_t lda, int64_t rows, int64_t n, float* out, int64_t ldo) {
  for (int64_t r = 0; r < rows; ++r) {
    const uint16_t* src = a + r * lda;
    float* dst = out + r * ldo;
    int64_t k = 0;
    for (; k + 8 <= n; k += 8) {
      const __m256i v =
          _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + k)));
      _mm256_store_ps(dst + k, _mm256_castsi256_ps(_mm256_slli_epi32(v, 16)));
    }
    for (; k < n; ++k) dst[k] = BFloat16ToFloat(src[k]);
  }
}

}  // namespace

#include "engine/kernels/gemm_bf16_widening.inc"

}  // namespace phasor::kernels::avx2

// The bfloat16 product's panel kernel for AVX2 + FMA (built with -mavx2
// -mfma): bfloat16 widened to float (a shift by 16 bits, exact), then the
// avx2 float product itself (GemmPanel, gemm_avx2.cc: fused multiply-adds in
// k order). Widening in the product's loop would cost two integer operations
// per 16 weights on every row tile, competing with the multiply-adds for the
// same ports; instead each chunk of kChunk k pairs of the panel is widened
// once into a buffer on the stack ([2·kChunk, 32] floats, in L1), and the
// rows' chunk likewise, kBlock rows at a time. Between chunks the sums wait in
// c (GemmPanel's accumulate), exactly as float32: the sums and their order are
// those of one pass. Only intrinsics, this file's own functions and the avx2
// target's kernels: nothing here may be shared with code built for another
// target.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx2 {
namespace {

constexpr int kPanel = 32;
constexpr int64_t kChunk = 64;  // k pairs widened at a time: 16 KiB of weights
constexpr int64_t kBlock = 24;  // rows widened at a time: 12 KiB

// Values [0, n) of rows [0, rows) of a (row stride lda) widened to float:
// out[r·ldo + k].
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
    for (; k < n; ++k) {
      const uint32_t u = uint32_t{src[k]} << 16;
      std::memcpy(dst + k, &u, sizeof(u));
    }
  }
}

}  // namespace

void Bf16Panel(const Bf16PanelArgs& p) {
  const __m256i high = _mm256_set1_epi32(static_cast<int32_t>(0xFFFF0000u));
  alignas(32) float wf[2 * kChunk * kPanel];  // [2·kChunk, 32]: the chunk's weights in float
  alignas(32) float xf[kBlock * 2 * kChunk];  // [kBlock, 2·kChunk]: the rows' chunk in float
  int64_t i0 = 0;
  do {  // at least once: with no k, the bias alone
    const int64_t n_pairs = p.pairs - i0 < kChunk ? p.pairs - i0 : kChunk;
    for (int64_t i = 0; i < n_pairs; ++i) {
      for (int g = 0; g < 4; ++g) {
        // 8 columns x the pair (2i, 2i + 1) to the rows 2i and 2i + 1 of wf.
        const __m256i v = _mm256_loadu_si256(
            reinterpret_cast<const __m256i*>(p.panel + (i0 + i) * 2 * kPanel + 16 * g));
        _mm256_store_ps(wf + 2 * i * kPanel + 8 * g, _mm256_castsi256_ps(_mm256_slli_epi32(v, 16)));
        _mm256_store_ps(wf + (2 * i + 1) * kPanel + 8 * g,
                        _mm256_castsi256_ps(_mm256_and_si256(v, high)));
      }
    }
    const bool first = i0 == 0, last = i0 + n_pairs == p.pairs;
    for (int64_t r0 = 0; r0 < p.rows; r0 += kBlock) {
      const int64_t nr = p.rows - r0 < kBlock ? p.rows - r0 : kBlock;
      WidenRows(p.a + r0 * p.lda + 2 * i0, p.lda, nr, 2 * n_pairs, xf, 2 * kChunk);
      GemmPanel(PanelArgs{xf, 2 * kChunk, nr, wf, kPanel, 2 * n_pairs, p.bias, !first,
                          p.relu && last, p.c + r0 * p.ldc, p.ldc, p.n_valid});
    }
    i0 += n_pairs;
  } while (i0 < p.pairs);
}

}  // namespace phasor::kernels::avx2

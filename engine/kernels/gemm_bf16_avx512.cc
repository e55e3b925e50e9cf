// The bfloat16 product's panel kernel for AVX-512 without AVX512-BF16
// (Skylake-SP, Ice Lake; built with -mavx512f and friends): bfloat16 widened to
// float (a shift by 16 bits, exact), then an 8 x 32 register tile of fused
// multiply-adds in k order. A 64-byte line of the panel, 16 columns x a k
// pair, widens to the two k's weight vectors (shift and mask); the tile's rows
// are widened once per chunk of k into a buffer on the stack, from which the
// multiply-adds broadcast them. Only intrinsics and this file's own functions:
// nothing here may be shared with code built for another target.
#include <immintrin.h>

#include <cstdint>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx512 {
namespace {

#include "engine/kernels/gemm_avx512_epilogue.inc"
#include "engine/kernels/tile_rows.inc"

constexpr int kPanel = 32;
constexpr int64_t kRows = 8;     // rows of the register tile: 16 accumulators
constexpr int64_t kChunk = 256;  // k values of the rows widened at a time

// x[r, k0 .. k0 + n) widened to float for r < MR: xs[r·kChunk + k].
template <int MR>
void WidenRows(const uint16_t* a, int64_t lda, int64_t k0, int64_t n, float* xs) {
  for (int r = 0; r < MR; ++r) {
    const uint16_t* src = a + r * lda + k0;
    float* dst = xs + r * kChunk;
    int64_t k = 0;
    for (; k + 16 <= n; k += 16) {
      const __m512i v =
          _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + k)));
      _mm512_storeu_ps(dst + k, _mm512_castsi512_ps(_mm512_slli_epi32(v, 16)));
    }
    const __mmask16 tail = static_cast<__mmask16>((1u << (n - k)) - 1);
    const __m512i v = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(tail, src + k));
    _mm512_mask_storeu_ps(dst + k, tail, _mm512_castsi512_ps(_mm512_slli_epi32(v, 16)));
  }
}

// Rows [0, MR) x the first n_valid columns of a panel (Bf16PanelArgs). All 32
// columns are computed (the panel is zero past the valid ones, the bias has
// 32 values); masked stores write the first n_valid only.
template <int MR>
void Tile(const Bf16PanelArgs& t) {
  const uint16_t *a = t.a, *panel = t.panel;
  const int64_t lda = t.lda, pairs = t.pairs;
  const __m512i high = _mm512_set1_epi32(static_cast<int32_t>(0xFFFF0000u));
  Bf16Tile<MR> tile(t);
  auto& acc = tile.acc;
  alignas(64) float xs[MR * kChunk];  // [MR, kChunk]: the rows' chunk in float
  for (int64_t k0 = 0; k0 < 2 * pairs; k0 += kChunk) {
    const int64_t n = 2 * pairs - k0 < kChunk ? 2 * pairs - k0 : kChunk;
    WidenRows<MR>(a, lda, k0, n, xs);
    const uint16_t* w = panel + k0 * kPanel;  // the chunk's first pair
    for (int64_t k = 0; k < n; k += 2, w += 2 * kPanel) {
      const __m512i v0 = _mm512_loadu_si512(w), v1 = _mm512_loadu_si512(w + kPanel);
      const __m512 even0 = _mm512_castsi512_ps(_mm512_slli_epi32(v0, 16));
      const __m512 even1 = _mm512_castsi512_ps(_mm512_slli_epi32(v1, 16));
      const __m512 odd0 = _mm512_castsi512_ps(_mm512_and_si512(v0, high));
      const __m512 odd1 = _mm512_castsi512_ps(_mm512_and_si512(v1, high));
      for (int r = 0; r < MR; ++r) {
        const __m512 x0 = _mm512_set1_ps(xs[r * kChunk + k]);
        const __m512 x1 = _mm512_set1_ps(xs[r * kChunk + k + 1]);
        acc[r][0] = _mm512_fmadd_ps(x0, even0, acc[r][0]);
        acc[r][1] = _mm512_fmadd_ps(x0, even1, acc[r][1]);
        acc[r][0] = _mm512_fmadd_ps(x1, odd0, acc[r][0]);
        acc[r][1] = _mm512_fmadd_ps(x1, odd1, acc[r][1]);
      }
    }
  }
  tile.Store(t);
}

constexpr void (*kTiles[kRows + 1])(const Bf16PanelArgs&) = {nullptr, PHASOR_TILES_8};

}  // namespace

void Bf16Panel(const Bf16PanelArgs& p) { ForRowTiles<kRows>(p, kTiles); }

}  // namespace phasor::kernels::avx512

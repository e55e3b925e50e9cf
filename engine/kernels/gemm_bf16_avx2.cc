// The bfloat16 product's panel kernel for AVX2 + FMA (built with -mavx2
// -mfma): bfloat16 widened to float (a shift by 16 bits, exact), then a 2 x 32
// register tile of fused multiply-adds in k order. 32 bytes of the panel, 8
// columns x a k pair, widen to the two k's weight vectors (shift and mask);
// the tile's rows are widened once per chunk of k into a buffer on the stack,
// from which the multiply-adds broadcast them. The 8 accumulators, the two
// rows' broadcast pair and the widened weights take 15 of the 16 ymm
// registers (3 rows would spill accumulators to the stack every k). Only
// intrinsics and this file's own functions: nothing here may be shared with
// code built for another target.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx2 {
namespace {

constexpr int kPanel = 32;
constexpr int64_t kRows = 2;     // rows of the register tile
constexpr int64_t kChunk = 256;  // k values of the rows widened at a time

// The lanes j < n of a vector (all for n >= 8, none for n <= 0).
inline __m256i Mask(int64_t n) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), lane);
}

// x[r, k0 .. k0 + n) widened to float for r < MR: xs[r·kChunk + k].
template <int MR>
void WidenRows(const uint16_t* a, int64_t lda, int64_t k0, int64_t n, float* xs) {
  for (int r = 0; r < MR; ++r) {
    const uint16_t* src = a + r * lda + k0;
    float* dst = xs + r * kChunk;
    int64_t k = 0;
    for (; k + 8 <= n; k += 8) {
      const __m256i v =
          _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + k)));
      _mm256_storeu_ps(dst + k, _mm256_castsi256_ps(_mm256_slli_epi32(v, 16)));
    }
    for (; k < n; ++k) {
      const uint32_t u = uint32_t{src[k]} << 16;
      std::memcpy(dst + k, &u, sizeof(u));
    }
  }
}

// Rows [0, MR) x the first n_valid columns of a panel (Bf16PanelArgs). All 32
// columns are computed (the panel is zero past the valid ones, the bias has
// 32 values); only the first n_valid are stored. The accumulators are named
// variables (c<row><vector>): held in an array, GCC keeps them in memory and
// stores all of them every k.
template <int MR>
void Tile(const uint16_t* a, int64_t lda, const uint16_t* panel, int64_t pairs, const float* bias,
          bool relu, float* c, int64_t ldc, int64_t n_valid) {
  const __m256i high = _mm256_set1_epi32(static_cast<int32_t>(0xFFFF0000u));
  const __m256 b0 = _mm256_loadu_ps(bias), b1 = _mm256_loadu_ps(bias + 8),
               b2 = _mm256_loadu_ps(bias + 16), b3 = _mm256_loadu_ps(bias + 24);
  __m256 c00 = b0, c01 = b1, c02 = b2, c03 = b3, c10 = b0, c11 = b1, c12 = b2, c13 = b3;
  alignas(32) float xs[MR * kChunk];  // [MR, kChunk]: the rows' chunk in float
  for (int64_t k0 = 0; k0 < 2 * pairs; k0 += kChunk) {
    const int64_t n = 2 * pairs - k0 < kChunk ? 2 * pairs - k0 : kChunk;
    WidenRows<MR>(a, lda, k0, n, xs);
    const uint16_t* w = panel + k0 * kPanel;  // the chunk's first pair
    for (int64_t k = 0; k < n; k += 2, w += 2 * kPanel) {
      // 8 columns g: the pair's weights widened, then each row's two steps.
      const auto columns = [&](int g, __m256& r0, __m256& r1) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 16 * g));
        const __m256 even = _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
        const __m256 odd = _mm256_castsi256_ps(_mm256_and_si256(v, high));
        r0 = _mm256_fmadd_ps(_mm256_broadcast_ss(xs + k), even, r0);
        r0 = _mm256_fmadd_ps(_mm256_broadcast_ss(xs + k + 1), odd, r0);
        if constexpr (MR > 1) {
          r1 = _mm256_fmadd_ps(_mm256_broadcast_ss(xs + kChunk + k), even, r1);
          r1 = _mm256_fmadd_ps(_mm256_broadcast_ss(xs + kChunk + k + 1), odd, r1);
        }
      };
      columns(0, c00, c10);
      columns(1, c01, c11);
      columns(2, c02, c12);
      columns(3, c03, c13);
    }
  }
  const __m256 zero = _mm256_setzero_ps();
  const auto put = [&](int r, int g, __m256 v) {
    if (r >= MR) return;
    if (relu) v = _mm256_max_ps(zero, v);  // the second operand when either is NaN: a NaN stays
    float* out = c + r * ldc + 8 * g;
    if (n_valid >= 8 * (g + 1)) {
      _mm256_storeu_ps(out, v);
    } else {
      _mm256_maskstore_ps(out, Mask(n_valid - 8 * g), v);
    }
  };
  put(0, 0, c00);
  put(0, 1, c01);
  put(0, 2, c02);
  put(0, 3, c03);
  put(1, 0, c10);
  put(1, 1, c11);
  put(1, 2, c12);
  put(1, 3, c13);
}

using TileFn = void (*)(const uint16_t*, int64_t, const uint16_t*, int64_t, const float*, bool,
                        float*, int64_t, int64_t);
constexpr TileFn kTiles[kRows + 1] = {nullptr, Tile<1>, Tile<2>};

}  // namespace

void Bf16Panel(const Bf16PanelArgs& p) {
  for (int64_t r0 = 0; r0 < p.rows; r0 += kRows) {
    const int64_t mr = p.rows - r0 < kRows ? p.rows - r0 : kRows;
    kTiles[mr](p.a + r0 * p.lda, p.lda, p.panel, p.pairs, p.bias, p.relu, p.c + r0 * p.ldc, p.ldc,
               p.n_valid);
  }
}

}  // namespace phasor::kernels::avx2

// The bfloat16 product's panel kernel for AVX2 + FMA (built with -mavx2
// -mfma): bfloat16 widened to float (a shift by 16 bits, exact), then the
// float product's 3 x 32 register tile of fused multiply-adds in k order.
// Widening in the tile's loop would cost two integer operations per 16
// weights on every row tile, competing with the multiply-adds for the same
// ports; instead each chunk of kChunk k pairs of the panel is widened once
// into a buffer on the stack ([2·kChunk, 32] floats, in L1) that every row tile
// then reads, and each tile widens its rows' chunk likewise. Between chunks
// the accumulators wait in c, exactly as float32: the sums and their order are
// those of one pass. Only intrinsics and this file's own functions: nothing
// here may be shared with code built for another target.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx2 {
namespace {

constexpr int kPanel = 32;
constexpr int64_t kRows = 3;    // rows of the register tile
constexpr int64_t kChunk = 64;  // k pairs widened at a time: 16 KiB of weights

// The lanes j < n of a vector (all for n >= 8, none for n <= 0).
inline __m256i Mask(int64_t n) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), lane);
}

// Rows [0, MR) x the first n_valid columns, over the k values [0, n) of a
// chunk: c = init + Σ x·w, init = bias (first chunk) or c (later ones).
// a: the rows' chunk in bfloat16, row stride lda; wf: [n, 32] floats. relu on
// the last chunk only. Columns past n_valid are computed from zeros and never
// stored. The 12 accumulators are named variables (c<row><vector>): held in an
// array, GCC keeps them in memory and stores all of them every k.
template <int MR>
void Tile(const uint16_t* a, int64_t lda, const float* wf, int64_t n, const float* bias, bool first,
          bool relu, float* c, int64_t ldc, int64_t n_valid) {
  const __m256i m0 = Mask(n_valid), m1 = Mask(n_valid - 8), m2 = Mask(n_valid - 16),
                m3 = Mask(n_valid - 24);
  const float* init = first ? bias : c;  // row r of the initial values at init + r·step
  const int64_t step = first ? 0 : ldc;
  const __m256 zero = _mm256_setzero_ps();
  __m256 c00 = zero, c01 = zero, c02 = zero, c03 = zero, c10 = zero, c11 = zero, c12 = zero,
         c13 = zero, c20 = zero, c21 = zero, c22 = zero, c23 = zero;
  c00 = _mm256_maskload_ps(init, m0);
  c01 = _mm256_maskload_ps(init + 8, m1);
  c02 = _mm256_maskload_ps(init + 16, m2);
  c03 = _mm256_maskload_ps(init + 24, m3);
  if constexpr (MR > 1) {
    c10 = _mm256_maskload_ps(init + step, m0);
    c11 = _mm256_maskload_ps(init + step + 8, m1);
    c12 = _mm256_maskload_ps(init + step + 16, m2);
    c13 = _mm256_maskload_ps(init + step + 24, m3);
  }
  if constexpr (MR > 2) {
    c20 = _mm256_maskload_ps(init + 2 * step, m0);
    c21 = _mm256_maskload_ps(init + 2 * step + 8, m1);
    c22 = _mm256_maskload_ps(init + 2 * step + 16, m2);
    c23 = _mm256_maskload_ps(init + 2 * step + 24, m3);
  }
  // The rows' chunk widened: xs[r·2·kChunk + k].
  alignas(32) float xs[MR * 2 * kChunk];
  for (int r = 0; r < MR; ++r) {
    const uint16_t* src = a + r * lda;
    float* dst = xs + r * 2 * kChunk;
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
  for (int64_t k = 0; k < n; ++k) {
    const float* w = wf + k * kPanel;
    const __m256 w0 = _mm256_load_ps(w), w1 = _mm256_load_ps(w + 8);
    const __m256 w2 = _mm256_load_ps(w + 16), w3 = _mm256_load_ps(w + 24);
    __m256 x = _mm256_broadcast_ss(xs + k);
    c00 = _mm256_fmadd_ps(x, w0, c00);
    c01 = _mm256_fmadd_ps(x, w1, c01);
    c02 = _mm256_fmadd_ps(x, w2, c02);
    c03 = _mm256_fmadd_ps(x, w3, c03);
    if constexpr (MR > 1) {
      x = _mm256_broadcast_ss(xs + 2 * kChunk + k);
      c10 = _mm256_fmadd_ps(x, w0, c10);
      c11 = _mm256_fmadd_ps(x, w1, c11);
      c12 = _mm256_fmadd_ps(x, w2, c12);
      c13 = _mm256_fmadd_ps(x, w3, c13);
    }
    if constexpr (MR > 2) {
      x = _mm256_broadcast_ss(xs + 4 * kChunk + k);
      c20 = _mm256_fmadd_ps(x, w0, c20);
      c21 = _mm256_fmadd_ps(x, w1, c21);
      c22 = _mm256_fmadd_ps(x, w2, c22);
      c23 = _mm256_fmadd_ps(x, w3, c23);
    }
  }
  const auto put = [&](float* out, __m256i m, __m256 v) {
    if (relu) v = _mm256_max_ps(zero, v);  // the second operand when either is NaN: a NaN stays
    _mm256_maskstore_ps(out, m, v);
  };
  put(c, m0, c00);
  put(c + 8, m1, c01);
  put(c + 16, m2, c02);
  put(c + 24, m3, c03);
  if constexpr (MR > 1) {
    put(c + ldc, m0, c10);
    put(c + ldc + 8, m1, c11);
    put(c + ldc + 16, m2, c12);
    put(c + ldc + 24, m3, c13);
  }
  if constexpr (MR > 2) {
    put(c + 2 * ldc, m0, c20);
    put(c + 2 * ldc + 8, m1, c21);
    put(c + 2 * ldc + 16, m2, c22);
    put(c + 2 * ldc + 24, m3, c23);
  }
}

using TileFn = void (*)(const uint16_t*, int64_t, const float*, int64_t, const float*, bool, bool,
                        float*, int64_t, int64_t);
constexpr TileFn kTiles[kRows + 1] = {nullptr, Tile<1>, Tile<2>, Tile<3>};

}  // namespace

void Bf16Panel(const Bf16PanelArgs& p) {
  const __m256i high = _mm256_set1_epi32(static_cast<int32_t>(0xFFFF0000u));
  alignas(32) float wf[2 * kChunk * kPanel];  // [2·kChunk, 32]: the chunk's weights in float
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
    for (int64_t r0 = 0; r0 < p.rows; r0 += kRows) {
      const int64_t mr = p.rows - r0 < kRows ? p.rows - r0 : kRows;
      kTiles[mr](p.a + r0 * p.lda + 2 * i0, p.lda, wf, 2 * n_pairs, p.bias, first, p.relu && last,
                 p.c + r0 * p.ldc, p.ldc, p.n_valid);
    }
    i0 += n_pairs;
  } while (i0 < p.pairs);
}

}  // namespace phasor::kernels::avx2

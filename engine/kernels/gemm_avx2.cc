// The packed product's panel kernel for AVX2 + FMA (built with -mavx2 -mfma):
// a 3 x 32 register tile, 12 accumulators and 4 panel registers of the 16 ymm
// registers. Fused multiply-adds in k order, as the AVX-512 tile: the two give
// the same bits. Only intrinsics and this file's own functions: nothing here
// may be shared with code built for another target.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx2 {
namespace {

#include "engine/kernels/tile_rows.inc"

constexpr int kPanel = 32;
constexpr int64_t kRows = 3;  // rows of the register tile

#include "engine/kernels/simd_avx2.inc"

// The lanes j < n of a vector, for masked loads and stores.
inline __m256i Mask(int64_t n) { return _mm256_castps_si256(Lanes(n)); }

// Rows [0, MR) x the first n_valid (<= 32) columns of a panel (t holds MR rows).
// Partial panels use masked loads and stores: nothing past n_valid is touched.
// The 12 accumulators are named variables (c<row><vector>): held in an array,
// GCC keeps them in memory and stores all of them every k.
template <int MR, bool kFull>
void TileOf(const PanelArgs& t) {
  const float *a = t.a, *panel = t.panel;
  float* c = t.c;
  const int64_t lda = t.lda, ldp = t.ldp, k = t.k, ldc = t.ldc, n_valid = t.n_valid;
  const bool accumulate = t.accumulate, relu = t.relu;
  const __m256i m0 = Mask(n_valid), m1 = Mask(n_valid - 8), m2 = Mask(n_valid - 16),
                m3 = Mask(n_valid - 24);
  const float* init = accumulate ? c : t.bias;  // row r of the initial values at init + r·step
  const int64_t step = accumulate ? ldc : 0;
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
  for (int64_t kk = 0; kk < k; ++kk) {
    _mm_prefetch(t.next.at + kk * t.next.step, _MM_HINT_T0);  // ForRowTiles' share
    const float* row = panel + kk * ldp;
    const __m256 w0 = kFull ? _mm256_loadu_ps(row) : _mm256_maskload_ps(row, m0);
    const __m256 w1 = kFull ? _mm256_loadu_ps(row + 8) : _mm256_maskload_ps(row + 8, m1);
    const __m256 w2 = kFull ? _mm256_loadu_ps(row + 16) : _mm256_maskload_ps(row + 16, m2);
    const __m256 w3 = kFull ? _mm256_loadu_ps(row + 24) : _mm256_maskload_ps(row + 24, m3);
    __m256 x = _mm256_broadcast_ss(a + kk);
    c00 = _mm256_fmadd_ps(x, w0, c00);
    c01 = _mm256_fmadd_ps(x, w1, c01);
    c02 = _mm256_fmadd_ps(x, w2, c02);
    c03 = _mm256_fmadd_ps(x, w3, c03);
    if constexpr (MR > 1) {
      x = _mm256_broadcast_ss(a + lda + kk);
      c10 = _mm256_fmadd_ps(x, w0, c10);
      c11 = _mm256_fmadd_ps(x, w1, c11);
      c12 = _mm256_fmadd_ps(x, w2, c12);
      c13 = _mm256_fmadd_ps(x, w3, c13);
    }
    if constexpr (MR > 2) {
      x = _mm256_broadcast_ss(a + 2 * lda + kk);
      c20 = _mm256_fmadd_ps(x, w0, c20);
      c21 = _mm256_fmadd_ps(x, w1, c21);
      c22 = _mm256_fmadd_ps(x, w2, c22);
      c23 = _mm256_fmadd_ps(x, w3, c23);
    }
  }
  const auto put = [&](float* out, __m256i m, __m256 v) {
    if (relu) v = _mm256_max_ps(zero, v);  // the second operand when either is NaN: a NaN stays
    if (kFull) {
      _mm256_storeu_ps(out, v);
    } else {
      _mm256_maskstore_ps(out, m, v);
    }
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

template <int MR>
void Tile(const PanelArgs& t) {
  if (t.n_valid == kPanel) {
    TileOf<MR, true>(t);
  } else {
    TileOf<MR, false>(t);
  }
}

constexpr void (*kTiles[kRows + 1])(const PanelArgs&) = {nullptr, PHASOR_TILES_3};

}  // namespace

void GemmPanel(const PanelArgs& p) { ForRowTiles<kRows>(p, kTiles); }

}  // namespace phasor::kernels::avx2

// The packed product's panel kernel for AVX2 + FMA (built with -mavx2 -mfma):
// a 3 x 32 register tile, 12 accumulators and 4 panel registers of the 16 ymm
// registers. Fused multiply-adds in k order, as the AVX-512 tile: the two give
// the same bits. Only intrinsics and this file's own functions: nothing here
// may be shared with code built for another target.
#include <immintrin.h>

#include <cstdint>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx2 {
namespace {

constexpr int kPanel = 32;
constexpr int64_t kRows = 3;  // rows of the register tile
constexpr int kVectors = kPanel / 8;

// Lanes j < n of vector v of a panel row (n_valid - 8·v, clamped to [0, 8]).
inline __m256i Mask(int64_t n) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), lane);
}

// Rows [0, MR) x the first n_valid (<= 32) columns of a panel (PanelArgs).
// Partial panels use masked loads and stores: nothing past n_valid is touched.
template <int MR, bool kFull>
void Tile(const float* a, int64_t lda, const float* panel, int64_t ldp, int64_t k,
          const float* bias, bool accumulate, bool relu, float* c, int64_t ldc, int64_t n_valid) {
  __m256i mask[kVectors];
  for (int v = 0; v < kVectors; ++v) mask[v] = Mask(n_valid - 8 * v);
  __m256 acc[MR][kVectors];
  for (int v = 0; v < kVectors; ++v) {
    const __m256 b = accumulate ? _mm256_setzero_ps() : _mm256_maskload_ps(bias + 8 * v, mask[v]);
    for (int r = 0; r < MR; ++r) {
      acc[r][v] = accumulate ? _mm256_maskload_ps(c + r * ldc + 8 * v, mask[v]) : b;
    }
  }
  for (int64_t kk = 0; kk < k; ++kk) {
    const float* row = panel + kk * ldp;
    __m256 w[kVectors];
    for (int v = 0; v < kVectors; ++v) {
      w[v] = kFull ? _mm256_loadu_ps(row + 8 * v) : _mm256_maskload_ps(row + 8 * v, mask[v]);
    }
    for (int r = 0; r < MR; ++r) {
      const __m256 x = _mm256_broadcast_ss(a + r * lda + kk);
      for (int v = 0; v < kVectors; ++v) acc[r][v] = _mm256_fmadd_ps(x, w[v], acc[r][v]);
    }
  }
  if (relu) {
    const __m256 zero = _mm256_setzero_ps();
    for (int r = 0; r < MR; ++r) {
      for (int v = 0; v < kVectors; ++v) acc[r][v] = _mm256_max_ps(acc[r][v], zero);
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int v = 0; v < kVectors; ++v) {
      if (kFull) {
        _mm256_storeu_ps(c + r * ldc + 8 * v, acc[r][v]);
      } else {
        _mm256_maskstore_ps(c + r * ldc + 8 * v, mask[v], acc[r][v]);
      }
    }
  }
}

template <int MR>
void TileAny(const float* a, int64_t lda, const float* panel, int64_t ldp, int64_t k,
             const float* bias, bool accumulate, bool relu, float* c, int64_t ldc,
             int64_t n_valid) {
  if (n_valid == kPanel) {
    Tile<MR, true>(a, lda, panel, ldp, k, bias, accumulate, relu, c, ldc, n_valid);
  } else {
    Tile<MR, false>(a, lda, panel, ldp, k, bias, accumulate, relu, c, ldc, n_valid);
  }
}

using TileFn = void (*)(const float*, int64_t, const float*, int64_t, int64_t, const float*, bool,
                        bool, float*, int64_t, int64_t);
constexpr TileFn kTiles[kRows + 1] = {nullptr, TileAny<1>, TileAny<2>, TileAny<3>};

}  // namespace

void GemmPanel(const PanelArgs& p) {
  for (int64_t r0 = 0; r0 < p.rows; r0 += kRows) {
    const int64_t mr = p.rows - r0 < kRows ? p.rows - r0 : kRows;
    kTiles[mr](p.a + r0 * p.lda, p.lda, p.panel, p.ldp, p.k, p.bias, p.accumulate, p.relu,
               p.c + r0 * p.ldc, p.ldc, p.n_valid);
  }
}

}  // namespace phasor::kernels::avx2

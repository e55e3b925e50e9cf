// The packed product's panel kernel for AVX-512 (built with -mavx512f and
// friends): an 8 x 32 register tile of fused multiply-adds, 16 accumulators.
// Only intrinsics, this file's own functions and gemm_avx512_epilogue.inc:
// nothing here may be shared with code built for another target.
#include <immintrin.h>

#include <cstdint>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx512 {
namespace {

#include "engine/kernels/gemm_avx512_epilogue.inc"
#include "engine/kernels/tile_rows.inc"

constexpr int kPanel = 32;
constexpr int64_t kRows = 8;  // rows of the register tile

// Rows [0, MR) x the first n_valid (<= 32) columns of a panel (t holds MR rows):
//   c = act(init + a·panel),  init = c itself (accumulate) or the bias row.
// a: [MR, k] row stride lda; panel: [k, n_valid] row stride ldp; bias: [32]
// (read only in its first n_valid). Partial panels use masked loads and
// stores, so nothing past n_valid is touched. 2·MR accumulators stay in
// registers across k.
template <int MR>
void Tile(const PanelArgs& t) {
  const float *a = t.a, *panel = t.panel, *bias = t.bias;
  float* c = t.c;
  const int64_t lda = t.lda, ldp = t.ldp, k = t.k, ldc = t.ldc, n_valid = t.n_valid;
  const __mmask16 m0 = LowMask(n_valid), m1 = HighMask(n_valid);
  const char* fetch = t.next.at;  // one prefetch a k step (ForRowTiles)
  const int64_t fetch_step = t.next.step;
  __m512 acc[MR][2];
  if (t.accumulate) {
    for (int r = 0; r < MR; ++r) {
      acc[r][0] = _mm512_maskz_loadu_ps(m0, c + r * ldc);
      acc[r][1] = _mm512_maskz_loadu_ps(m1, c + r * ldc + 16);
    }
  } else {
    const __m512 b0 = _mm512_maskz_loadu_ps(m0, bias), b1 = _mm512_maskz_loadu_ps(m1, bias + 16);
    for (int r = 0; r < MR; ++r) {
      acc[r][0] = b0;
      acc[r][1] = b1;
    }
  }
  if (n_valid == kPanel) {
    for (int64_t kk = 0; kk < k; ++kk) {
      _mm_prefetch(fetch + kk * fetch_step, _MM_HINT_T0);
      const __m512 w0 = _mm512_loadu_ps(panel + kk * ldp);
      const __m512 w1 = _mm512_loadu_ps(panel + kk * ldp + 16);
      for (int r = 0; r < MR; ++r) {
        const __m512 x = _mm512_set1_ps(a[r * lda + kk]);
        acc[r][0] = _mm512_fmadd_ps(x, w0, acc[r][0]);
        acc[r][1] = _mm512_fmadd_ps(x, w1, acc[r][1]);
      }
    }
  } else {
    for (int64_t kk = 0; kk < k; ++kk) {
      _mm_prefetch(fetch + kk * fetch_step, _MM_HINT_T0);
      const __m512 w0 = _mm512_maskz_loadu_ps(m0, panel + kk * ldp);
      const __m512 w1 = _mm512_maskz_loadu_ps(m1, panel + kk * ldp + 16);
      for (int r = 0; r < MR; ++r) {
        const __m512 x = _mm512_set1_ps(a[r * lda + kk]);
        acc[r][0] = _mm512_fmadd_ps(x, w0, acc[r][0]);
        acc[r][1] = _mm512_fmadd_ps(x, w1, acc[r][1]);
      }
    }
  }
  for (int r = 0; r < MR; ++r) StoreRow(acc[r][0], acc[r][1], t.relu, c + r * ldc, m0, m1);
}

constexpr void (*kTiles[kRows + 1])(const PanelArgs&) = {nullptr, PHASOR_TILES_8};

}  // namespace

void GemmPanel(const PanelArgs& p) { ForRowTiles<kRows>(p, kTiles); }

}  // namespace phasor::kernels::avx512

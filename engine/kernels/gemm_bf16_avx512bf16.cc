// The bfloat16 product's panel kernel for AVX-512 CPUs with AVX512-BF16 (built
// with avx512's flags and -mavx512bf16; engine/cpu.cc puts it in the avx512
// table only where the CPU has it): an 8 x 32 register tile of vdpbf16ps,
// each adding a pair of k products per column, twice the multiply-adds of a
// float FMA. One 64-byte line of the panel is 16 columns x a k pair; the
// row's pair is broadcast from memory. vdpbf16ps flushes denormal inputs and
// results to zero and rounds to nearest even whatever MXCSR says. Only
// intrinsics and this file's own functions: nothing here may be shared with
// code built for another target.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx512bf16 {
namespace {

#include "engine/kernels/gemm_avx512_epilogue.inc"
#include "engine/kernels/tile_rows.inc"

constexpr int kPanel = 32;
constexpr int64_t kRows = 8;  // rows of the register tile: 16 accumulators

// Rows [0, MR) x the first n_valid columns of a panel (Bf16PanelArgs). All 32
// columns are computed (the panel is zero past the valid ones, the bias has
// 32 values); masked stores write the first n_valid only.
template <int MR>
void Tile(const Bf16PanelArgs& t) {
  const uint16_t *a = t.a, *panel = t.panel;
  const int64_t lda = t.lda, pairs = t.pairs;
  Bf16Tile<MR> tile(t);
  auto& acc = tile.acc;
  const char* fetch = t.next.at;  // one prefetch a k step (ForRowTiles)
  const int64_t fetch_step = t.next.step;
  for (int64_t i = 0; i < pairs; ++i) {
    _mm_prefetch(fetch + i * fetch_step, _MM_HINT_T0);
    const __m512bh w0 = reinterpret_cast<__m512bh>(_mm512_loadu_si512(panel + i * 2 * kPanel));
    const __m512bh w1 =
        reinterpret_cast<__m512bh>(_mm512_loadu_si512(panel + i * 2 * kPanel + kPanel));
    for (int r = 0; r < MR; ++r) {
      int32_t pair;  // x[r, 2i] in the low half, x[r, 2i + 1] in the high half
      std::memcpy(&pair, a + r * lda + 2 * i, sizeof(pair));
      const __m512bh x = reinterpret_cast<__m512bh>(_mm512_set1_epi32(pair));
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], x, w0);
      acc[r][1] = _mm512_dpbf16_ps(acc[r][1], x, w1);
    }
  }
  tile.Store(t);
}

constexpr void (*kTiles[kRows + 1])(const Bf16PanelArgs&) = {nullptr, PHASOR_TILES_8};

}  // namespace

void Bf16Panel(const Bf16PanelArgs& p) { ForRowTiles<kRows>(p, kTiles); }

}  // namespace phasor::kernels::avx512bf16

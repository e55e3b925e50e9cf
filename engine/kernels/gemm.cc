#include "engine/kernels/gemm.h"

#include <algorithm>
#include <cassert>
#include <cstdint>

#include "engine/parallel.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace phasor::kernels {
namespace {

constexpr int64_t kAlignFloats = 16;  // 64 bytes

alignas(64) constexpr float kZeros[kGemmPanel] = {};

#if defined(__AVX512F__)

// Rows [0, MR) x the first n_valid (<= 32) columns of a panel:
//   c = act(init + a·panel),  init = c itself (accumulate) or the bias row.
// a: [MR, k] row stride lda; panel: [k, n_valid] row stride ldp; bias: [32]
// (read only in its first n_valid). Partial panels use masked loads and
// stores, so nothing past n_valid is touched. 2·MR accumulators stay in
// registers across k.
template <int MR>
void Tile(const float* a, int64_t lda, const float* panel, int64_t ldp, int64_t k,
          const float* bias, bool accumulate, bool relu, float* c, int64_t ldc, int64_t n_valid) {
  const __mmask16 m0 = static_cast<__mmask16>((1u << std::min<int64_t>(n_valid, 16)) - 1);
  const __mmask16 m1 = static_cast<__mmask16>((1u << std::max<int64_t>(n_valid - 16, 0)) - 1);
  __m512 acc[MR][2];
  if (accumulate) {
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
  if (n_valid == kGemmPanel) {
    for (int64_t kk = 0; kk < k; ++kk) {
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
      const __m512 w0 = _mm512_maskz_loadu_ps(m0, panel + kk * ldp);
      const __m512 w1 = _mm512_maskz_loadu_ps(m1, panel + kk * ldp + 16);
      for (int r = 0; r < MR; ++r) {
        const __m512 x = _mm512_set1_ps(a[r * lda + kk]);
        acc[r][0] = _mm512_fmadd_ps(x, w0, acc[r][0]);
        acc[r][1] = _mm512_fmadd_ps(x, w1, acc[r][1]);
      }
    }
  }
  if (relu) {
    const __m512 zero = _mm512_setzero_ps();
    for (int r = 0; r < MR; ++r) {
      acc[r][0] = _mm512_max_ps(acc[r][0], zero);
      acc[r][1] = _mm512_max_ps(acc[r][1], zero);
    }
  }
  for (int r = 0; r < MR; ++r) {
    _mm512_mask_storeu_ps(c + r * ldc, m0, acc[r][0]);
    _mm512_mask_storeu_ps(c + r * ldc + 16, m1, acc[r][1]);
  }
}

#else  // portable

// The same computation in plain C++: per output, the initial value then one
// multiply and one add per k (no contraction: -ffp-contract=off), in k order.
template <int MR>
void Tile(const float* a, int64_t lda, const float* panel, int64_t ldp, int64_t k,
          const float* bias, bool accumulate, bool relu, float* c, int64_t ldc, int64_t n_valid) {
  float acc[MR][kGemmPanel] = {};
  for (int r = 0; r < MR; ++r) {
    for (int64_t j = 0; j < n_valid; ++j) acc[r][j] = accumulate ? c[r * ldc + j] : bias[j];
  }
  for (int64_t kk = 0; kk < k; ++kk) {
    const float* w = panel + kk * ldp;
    for (int r = 0; r < MR; ++r) {
      const float x = a[r * lda + kk];
      for (int64_t j = 0; j < n_valid; ++j) acc[r][j] += x * w[j];
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int64_t j = 0; j < n_valid; ++j) {
      c[r * ldc + j] = relu ? std::max(acc[r][j], 0.0f) : acc[r][j];
    }
  }
}

#endif

using TileFn = void (*)(const float*, int64_t, const float*, int64_t, int64_t, const float*, bool,
                        bool, float*, int64_t, int64_t);
constexpr TileFn kTiles[kGemmRows + 1] = {nullptr, Tile<1>, Tile<2>, Tile<3>, Tile<4>,
                                          Tile<5>, Tile<6>, Tile<7>, Tile<8>};

}  // namespace

PackedWeights::PackedWeights(const float* w, const float* b, int64_t out, int64_t in)
    : out_(out), in_(in) {
  assert(out >= 0 && in >= 0);
  const int64_t n_panels = panels();
  storage_.assign(static_cast<size_t>(n_panels * kGemmPanel * (in + 1) + kAlignFloats), 0.0f);
  const uintptr_t misalignment = reinterpret_cast<uintptr_t>(storage_.data()) % 64;
  offset_ = misalignment == 0 ? 0 : static_cast<int64_t>((64 - misalignment) / sizeof(float));
  float* packed = storage_.data() + offset_;
  for (int64_t p = 0; p < n_panels; ++p) {
    const int64_t cols = std::min(kGemmPanel, out - p * kGemmPanel);
    float* dst = packed + p * in * kGemmPanel;  // [in, kGemmPanel]
    for (int64_t j = 0; j < cols; ++j) {
      const float* row = w + (p * kGemmPanel + j) * in;  // W[p·32 + j, :]
      for (int64_t k = 0; k < in; ++k) dst[k * kGemmPanel + j] = row[k];
    }
  }
  float* bias = packed + n_panels * in * kGemmPanel;
  if (b != nullptr) std::copy(b, b + out, bias);
}

void PackedLinearBlock(const float* x, int64_t ldx, int64_t rows, const PackedWeights& w,
                       int64_t col_begin, int64_t col_end, float* y, int64_t ldy, Activation act) {
  assert(rows >= 0 && col_begin % kGemmPanel == 0 && col_end <= w.out());
  const int64_t k = w.in();
  const bool relu = act == Activation::kRelu;
  // Panel outermost: a panel ([k, 32], 64 KiB for k = 512) is read from L2 by
  // every 8-row tile of the block while the block's rows stay in L1/L2.
  for (int64_t c0 = col_begin; c0 < col_end; c0 += kGemmPanel) {
    const int64_t p = c0 / kGemmPanel;
    const int64_t n_valid = std::min(kGemmPanel, col_end - c0);
    for (int64_t r0 = 0; r0 < rows; r0 += kGemmRows) {
      const int64_t mr = std::min(kGemmRows, rows - r0);
      kTiles[mr](x + r0 * ldx, ldx, w.panel(p), kGemmPanel, k, w.bias() + c0, false, relu,
                 y + r0 * ldy + c0, ldy, n_valid);
    }
  }
  if (act == Activation::kGelu) {
    for (int64_t r = 0; r < rows; ++r) {
      float* row = y + r * ldy + col_begin;
      Gelu(row, col_end - col_begin, row);
    }
  }
}

void GemmPanels(const PanelProduct& p) {
  assert(p.rows >= 0 && p.k >= 0 && p.n >= 0);
  for (int64_t c0 = 0; c0 < p.n; c0 += kGemmPanel) {
    const float* panel = p.b + c0 / kGemmPanel * p.panel_stride;
    const int64_t n_valid = std::min(kGemmPanel, p.n - c0);
    for (int64_t r0 = 0; r0 < p.rows; r0 += kGemmRows) {
      const int64_t mr = std::min(kGemmRows, p.rows - r0);
      kTiles[mr](p.a + r0 * p.lda, p.lda, panel, p.ldb, p.k, kZeros, p.accumulate, false,
                 p.c + r0 * p.ldc + c0, p.ldc, n_valid);
    }
  }
}

void PackedLinear(const float* x, int64_t rows, const PackedWeights& w, float* y, Activation act) {
  assert(rows >= 0);
  const int64_t out = w.out();
  if (rows == 0 || out == 0) return;
  const int64_t row_tiles = (rows + kPackedLinearRows - 1) / kPackedLinearRows;
  const int64_t col_tiles = (out + kPackedLinearCols - 1) / kPackedLinearCols;
  ParallelTasks(row_tiles * col_tiles, 0, [&](int64_t t, int /*slot*/) {
    const int64_t r0 = t / col_tiles * kPackedLinearRows;
    const int64_t c0 = t % col_tiles * kPackedLinearCols;
    PackedLinearBlock(x + r0 * w.in(), w.in(), std::min(kPackedLinearRows, rows - r0), w, c0,
                      std::min(out, c0 + kPackedLinearCols), y + r0 * out, out, act);
  });
}

}  // namespace phasor::kernels

#include "engine/kernels/gemm.h"

#include <algorithm>
#include <cassert>
#include <cstdint>

#include "engine/kernels/kernel_table.h"
#include "engine/parallel.h"

namespace phasor::kernels {
namespace {

constexpr int64_t kAlignFloats = 16;  // 64 bytes

alignas(64) constexpr float kZeros[kGemmPanel] = {};

}  // namespace

PackedWeights::PackedWeights(const float* w, const float* b, int64_t out, int64_t in)
    : out_(out), in_(in) {
  assert(out >= 0 && in >= 0);
  const int64_t n_panels = panels();
  storage_.resize(static_cast<size_t>(n_panels * kGemmPanel * (in + 1) + kAlignFloats));
  const uintptr_t misalignment = reinterpret_cast<uintptr_t>(storage_.data()) % 64;
  offset_ = misalignment == 0 ? 0 : static_cast<int64_t>((64 - misalignment) / sizeof(float));
  float* packed = storage_.data() + offset_;
  // Panels are independent: a model's load packs them on every thread. Each
  // value is written once, a panel row at a time (the 32 source rows are read
  // in step, a cache line of each serving 16 panel rows), the columns past
  // `out` as zeros.
  ParallelTasks(n_panels, 0, [&](int64_t p, int /*slot*/) {
    const int64_t cols = std::min(kGemmPanel, out - p * kGemmPanel);
    const float* src = w + p * kGemmPanel * in;  // W[p·32 + j, k] at [j·in + k]
    float* dst = packed + p * in * kGemmPanel;   // [in, kGemmPanel]
    for (int64_t k = 0; k < in; ++k) {
      float* to = dst + k * kGemmPanel;
      for (int64_t j = 0; j < cols; ++j) to[j] = src[j * in + k];
      std::fill(to + cols, to + kGemmPanel, 0.0f);
    }
  });
  float* bias = packed + n_panels * in * kGemmPanel;  // [n_panels · kGemmPanel]
  if (b != nullptr) std::copy(b, b + out, bias);
  std::fill(bias + (b != nullptr ? out : 0), bias + n_panels * kGemmPanel, 0.0f);
}

void PackedLinearBlock(const float* x, int64_t ldx, int64_t rows, const PackedWeights& w,
                       const OutputBlock& out) {
  assert(rows >= 0 && out.col_begin % kGemmPanel == 0 && out.col_end <= w.out());
  const int64_t k = w.in();
  const bool relu = out.act == Activation::kRelu;
  // Panel outermost: a panel ([k, 32], 64 KiB for k = 512) is read from L2 by
  // every 8-row tile of the block while the block's rows stay in L1/L2, and
  // those tiles fetch the next panel meanwhile (PanelFetch).
  const auto gemm_panel = Kernels().gemm_panel;
  for (int64_t c0 = out.col_begin; c0 < out.col_end; c0 += kGemmPanel) {
    const int64_t n_valid = std::min(kGemmPanel, out.col_end - c0);
    gemm_panel(PanelArgs{x, ldx, rows, w.panel(c0 / kGemmPanel), kGemmPanel, k, w.bias() + c0,
                         false, relu, out.y + c0, out.ldy, n_valid,
                         NextPanel(w.panel(0), k * kGemmPanel * 4, c0 / kGemmPanel, w.panels())});
  }
  FinishBlock(rows, out);
}

void GemmPanels(const PanelProduct& p) {
  assert(p.rows >= 0 && p.k >= 0 && p.n >= 0);
  const auto gemm_panel = Kernels().gemm_panel;
  for (int64_t c0 = 0; c0 < p.n; c0 += kGemmPanel) {
    const float* panel = p.b + c0 / kGemmPanel * p.panel_stride;
    const int64_t n_valid = std::min(kGemmPanel, p.n - c0);
    gemm_panel(PanelArgs{p.a, p.lda, p.rows, panel, p.ldb, p.k, kZeros, p.accumulate, false,
                         p.c + c0, p.ldc, n_valid});
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
    PackedLinearBlock(x + r0 * w.in(), w.in(), std::min(kPackedLinearRows, rows - r0), w,
                      {c0, std::min(out, c0 + kPackedLinearCols), y + r0 * out, out, act});
  });
}

}  // namespace phasor::kernels

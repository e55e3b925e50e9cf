#include "engine/kernels/gemm_bf16.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>

#include "engine/bfloat16.h"
#include "engine/cpu.h"
#include "engine/kernels/kernel_table.h"
#include "engine/kernels/onednn_matmul.h"

namespace phasor::kernels {
namespace {

constexpr int64_t kPanel = 32;  // outputs per packed panel

}  // namespace

uint16_t ToBf16(float v) { return FloatToBFloat16(v); }

float FromBf16(uint16_t v) { return BFloat16ToFloat(v); }

void Bf16Weights::Allocate(const float* b) {
  assert(out_ >= 0 && in_ >= 0);
  row_values_ = in_ + (in_ & 1);
  const int64_t panels = (out_ + kPanel - 1) / kPanel;
  packed_.assign(static_cast<size_t>(panels * kPanel * row_values_), 0);
  bias_.assign(static_cast<size_t>(panels * kPanel), 0.0f);
  if (b != nullptr) std::copy(b, b + out_, bias_.begin());
}

namespace {

// Writes W[c, k] = get(c, k) for c < out, k < in into the layout of packed().
template <class Get>
void Pack(int64_t out, int64_t in, int64_t row_values, Get get, uint16_t* packed) {
  for (int64_t c = 0; c < out; ++c) {
    uint16_t* dst = packed + c / kPanel * kPanel * row_values + 2 * (c % kPanel);
    for (int64_t k = 0; k < in; ++k) dst[k / 2 * 2 * kPanel + k % 2] = get(c, k);
  }
}

}  // namespace

void Bf16Weights::UseOnednn(const uint16_t* w, const float* b) {
  row_values_ = in_;  // oneDNN reads dense rows
  onednn_ = OnednnMatmul::MakeBf16(w, b, out_, in_);
}

Bf16Weights::Bf16Weights(const float* w, const float* b, int64_t out, int64_t in)
    : out_(out), in_(in) {
  if (ActiveIsa() == Isa::kAmx) {
    std::vector<uint16_t> wb(static_cast<size_t>(out * in));  // [out, in]
    RoundBf16(w, out * in, wb.data());
    UseOnednn(wb.data(), b);
    return;
  }
  Allocate(b);
  Pack(
      out, in, row_values_, [&](int64_t c, int64_t k) { return ToBf16(w[c * in + k]); },
      packed_.data());
}

Bf16Weights::Bf16Weights(const uint16_t* w, const float* b, int64_t out, int64_t in)
    : out_(out), in_(in) {
  if (ActiveIsa() == Isa::kAmx) {
    UseOnednn(w, b);
    return;
  }
  Allocate(b);
  Pack(
      out, in, row_values_, [&](int64_t c, int64_t k) { return w[c * in + k]; }, packed_.data());
}

int64_t Bf16Weights::bytes() const {
  return static_cast<int64_t>(packed_.size() * sizeof(uint16_t) + bias_.size() * sizeof(float)) +
         (onednn_ != nullptr ? onednn_->bytes() : 0);
}

void RoundBf16(const float* x, int64_t n, uint16_t* out) { Kernels().bf16_round(x, n, out); }

void PairRowsBf16(const float* x, int64_t ldx, int64_t rows, int64_t n, uint16_t* out,
                  int64_t ldo) {
  assert(rows >= 0 && n >= 0 && (rows <= 1 || ldx >= n) && (rows <= 2 || ldo >= 2 * n));
  Kernels().bf16_pair_rows(x, ldx, rows, n, out, ldo);
}

void RoundRowsBf16(const float* x, int64_t ldx, int64_t rows, const Bf16Weights& w, uint16_t* xb,
                   int64_t ldxb) {
  const int64_t in = w.in();
  assert(rows >= 0 && ldx >= in && ldxb >= w.row_values());
  for (int64_t r = 0; r < rows; ++r) {
    uint16_t* dst = xb + r * ldxb;  // [row_values]
    RoundBf16(x + r * ldx, in, dst);
    if (w.row_values() > in) dst[in] = 0;
  }
}

void Bf16LinearBlock(const uint16_t* xb, int64_t ldxb, int64_t rows, const Bf16Weights& w,
                     const OutputBlock& out) {
  assert(rows >= 0 && out.col_begin >= 0 && out.col_begin % kPanel == 0 && out.col_end <= w.out());
  assert(ldxb >= w.row_values());
  if (w.onednn() != nullptr) {
    assert(out.col_begin == 0 && out.col_end == w.out());
    w.onednn()->RunBf16(xb, ldxb, rows, out.y, out.ldy, out.act);
    return;
  }
  const int64_t pairs = w.row_values() / 2;
  const bool relu = out.act == Activation::kRelu;
  // Panel outermost, as PackedLinearBlock: a panel ([pairs, 32, 2], 32 KiB for
  // in = 512) stays in L1/L2 while every row tile of the block reads it and
  // fetches the next (PanelFetch).
  const auto bf16_panel = Kernels().bf16_panel;
  for (int64_t c0 = out.col_begin; c0 < out.col_end; c0 += kPanel) {
    const int64_t n_valid = std::min(kPanel, out.col_end - c0);
    bf16_panel(Bf16PanelArgs{xb, ldxb, rows, w.packed() + c0 * w.row_values(), pairs, w.bias() + c0,
                             relu, out.y + c0, out.ldy, n_valid,
                             NextPanel(w.packed(), kPanel * w.row_values() * 2, c0 / kPanel,
                                       (w.out() + kPanel - 1) / kPanel)});
  }
  FinishBlock(rows, out);
}

}  // namespace phasor::kernels

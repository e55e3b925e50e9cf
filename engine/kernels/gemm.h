// The fully connected layer on weights packed once at load time.
//
//   y[rows, out] = act(x[rows, in] · Wᵀ + b),  W: [out, in] row-major (nn.Linear.weight)
//
// PackedWeights stores W as column panels of kGemmPanel outputs, each panel
// [in, kGemmPanel] contiguous and 64-byte aligned (zero-padded past `out`), so
// the product streams a panel straight into a register tile of fused
// multiply-adds without copying or transposing anything per call. The tile is
// the chosen target's (engine/cpu.h): 8 x 32 on avx512, 3 x 32 on avx2, plain
// C++ on portable (a multiply and an add, rounded apart, instead of an FMA).
//
// Every output is bias + Σ_k x[r, k]·W[c, k] accumulated in k order, one
// rounding per step, whatever the tiling: results depend on the values (and the
// target: avx512 and avx2 agree bit for bit) only, never on the thread count or
// on which rows and columns a call covers.
//
// phasor_bench's BM_PackedLinear times it at encoder shapes (docs/benchmarks.md).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/aligned_allocator.h"
#include "engine/kernels/activations.h"

namespace phasor::kernels {

inline constexpr int64_t kGemmPanel = 32;  // output columns per packed panel

class PackedWeights {
 public:
  PackedWeights() = default;
  // w: [out, in] row-major; b: [out] or null (no bias). Copies both.
  PackedWeights(const float* w, const float* b, int64_t out, int64_t in);

  int64_t out() const { return out_; }
  int64_t in() const { return in_; }
  int64_t panels() const { return (out_ + kGemmPanel - 1) / kGemmPanel; }
  // Bytes held: the panels and the bias.
  int64_t bytes() const { return panels() * kGemmPanel * (in_ + 1) * 4; }
  // Panel p: [in, kGemmPanel], W[p·kGemmPanel + j, k] at [k·kGemmPanel + j].
  const float* panel(int64_t p) const { return data() + p * in_ * kGemmPanel; }
  // [panels · kGemmPanel]: the bias, zero past out (and everywhere without one).
  const float* bias() const { return data() + panels() * in_ * kGemmPanel; }

 private:
  const float* data() const { return storage_.data() + offset_; }
  int64_t out_ = 0, in_ = 0;
  int64_t offset_ = 0;  // floats skipped to align the first panel to 64 bytes
  // Panels, then the bias: in huge pages where large, and written once by the
  // packing (not zeroed first), which touches the pages on every thread.
  UninitAlignedFloats storage_;
};

// The rows [0, rows) and the block's columns of y = act(x·Wᵀ + b):
// x: [rows, w.in()] with row stride ldx. out.y may not overlap x. relu keeps a
// NaN a NaN. Serial: callers split rows and columns over threads.
void PackedLinearBlock(const float* x, int64_t ldx, int64_t rows, const PackedWeights& w,
                       const OutputBlock& out);

// The general form, for operands made on the fly (attention's scores and
// values): c[rows, n] = (accumulate ? c : 0) + a[rows, k] · B[k, n].
struct PanelProduct {
  const float* a = nullptr;  // [rows, k], row stride lda
  int64_t lda = 0;
  // B [k, n] in panels: columns [32·p, 32·p + 32) are the panel at
  // b + p·panel_stride, its row kk at + kk·ldb (B row-major with row stride
  // ldb: panel_stride 32; B packed as PackedWeights: ldb 32, panel_stride 32·k).
  const float* b = nullptr;
  int64_t ldb = 0;
  int64_t panel_stride = 0;
  float* c = nullptr;  // [rows, n], row stride ldc; may not overlap a or B
  int64_t ldc = 0;
  int64_t rows = 0, k = 0, n = 0;
  bool accumulate = false;  // false: c is overwritten
};

// Reads nothing of B past column n. Serial. Same accumulation order as above.
void GemmPanels(const PanelProduct& p);

// y: [rows, w.out()] = act(x[rows, w.in()]·Wᵀ + b), all of it, in tasks of
// kPackedLinearRows rows x kPackedLinearCols columns over ParallelTasks.
inline constexpr int64_t kPackedLinearRows = 64;
inline constexpr int64_t kPackedLinearCols = 256;
void PackedLinear(const float* x, int64_t rows, const PackedWeights& w, float* y,
                  Activation act = Activation::kIdentity);

}  // namespace phasor::kernels

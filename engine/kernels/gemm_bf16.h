// The fully connected layer in bfloat16 with float32 accumulation:
//
//   y[rows, out] = act(bf16(x)·bf16(W)ᵀ + b),  W: [out, in] (nn.Linear.weight)
//
// bf16(v) rounds a float to bfloat16 (its top 16 bits) to nearest, ties to
// even; NaN stays NaN. W is rounded and packed once at load; the rows of x are
// rounded just before the product. Each output is b + Σ_k bf16(x)·bf16(W) in
// float32: the products are exact in float32, the sums rounded. avx512 with
// AVX512-BF16 uses vdpbf16ps (pairs of k, denormals flushed); avx512 without
// it, avx2 and portable widen bfloat16 to float and add the products to the
// bias in k order, one rounding per add (a fused multiply-add or a multiply and
// an add round alike when the product is exact), so those three give the same
// bits (for products that are normal floats) and vdpbf16ps agrees with them
// within float32 rounding of the sums. Within a target the result depends on
// the values only, never on the thread count or the split.
//
// On the amx target (engine/cpu.h) weights made while it is chosen go to
// oneDNN instead (onednn_matmul.h): reordered into its layout, their products
// oneDNN's (float32 sums in its order, bias and act fused), and they keep
// running there whatever target is chosen later.
//
// tests/support/reference_bf16.h holds the naive twins; phasor_bench's
// BM_Bf16Linear times the product at encoder shapes.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/aligned_allocator.h"
#include "engine/kernels/activations.h"
#include "engine/kernels/gemm.h"
#include "engine/kernels/onednn_matmul.h"

namespace phasor::kernels {

// Rounds a float to bfloat16 (to nearest, ties to even; NaN stays a quiet NaN).
uint16_t ToBf16(float v);
float FromBf16(uint16_t v);
// out[j] = ToBf16(x[j]) for j < n, with the target's vectors. Serial.
void RoundBf16(const float* x, int64_t n, uint16_t* out);
// Rows x [rows, n] (row stride ldx) rounded two by two into pairs: row pair p
// to out + p·ldo, [n, 2] with out[p·ldo + 2c + t] = ToBf16(x[(2p + t)·ldx + c]),
// the row past an odd count written 0. The layout of a bfloat16 panel's k
// pairs (Bf16Weights, attention_bf16.h). With the target's vectors. Serial.
void PairRowsBf16(const float* x, int64_t ldx, int64_t rows, int64_t n, uint16_t* out, int64_t ldo);

// W rounded to bfloat16 and packed once for the chosen target's product.
class Bf16Weights {
 public:
  Bf16Weights() = default;
  // w: [out, in] row-major; b: [out] or null (no bias). Copies what it needs.
  Bf16Weights(const float* w, const float* b, int64_t out, int64_t in);
  // The same from weights already in bfloat16 (a BF16 safetensors tensor),
  // without a float32 copy.
  Bf16Weights(const uint16_t* w, const float* b, int64_t out, int64_t in);

  int64_t out() const { return out_; }
  int64_t in() const { return in_; }
  // The row stride, in bfloat16 values, that RoundRowsBf16's output must have
  // at least (in rounded up to a pair; the value past in is written 0;
  // oneDNN's weights: in).
  int64_t row_values() const { return row_values_; }
  // Bytes held: about 2·out·in plus the bias.
  int64_t bytes() const;

  // The packed layout is the kernels' (gemm_bf16*.cc): panels of 32 outputs,
  // each [row_values/2, 32, 2] contiguous and 64-byte aligned: W[32·p + j, 2i + t]
  // at packed() + p·32·row_values + 64·i + 2·j + t, zero past in and past out.
  // One k pair of 16 outputs is one 64-byte line (a vdpbf16ps operand).
  const uint16_t* packed() const { return packed_.data(); }
  const float* bias() const { return bias_.data(); }  // [out rounded up], zero past out
  // The weights in oneDNN's layout instead (amx), or null: packed() and
  // bias() are then empty.
  const OnednnMatmul* onednn() const { return onednn_.get(); }
  // The blocks a caller splits the product into (each a serial call of
  // Bf16LinearBlock): rows and columns a block; oneDNN's take every column.
  int64_t block_rows() const { return onednn_ ? kOnednnRows : kPackedLinearRows; }
  int64_t block_cols() const { return onednn_ ? out_ : kPackedLinearCols; }

 private:
  // Sizes the storage (zeroed); the constructors fill it.
  void Allocate(const float* b);
  // The weights (w: [out, in] bfloat16) to oneDNN, where amx is chosen.
  void UseOnednn(const uint16_t* w, const float* b);

  int64_t out_ = 0, in_ = 0, row_values_ = 0;
  // [panels, row_values/2, 32, 2]; 64-byte aligned, copies too.
  std::vector<uint16_t, AlignedAllocator<uint16_t>> packed_;
  std::vector<float> bias_;  // [panels·32]
  std::shared_ptr<const OnednnMatmul> onednn_;
};

// Rows [0, rows) of x ([rows, in], row stride ldx, in = w.in()) rounded:
// xb: [rows, w.row_values()] with row stride ldxb >= w.row_values(). Serial.
void RoundRowsBf16(const float* x, int64_t ldx, int64_t rows, const Bf16Weights& w, uint16_t* xb,
                   int64_t ldxb);

// The block's columns of y = act(xb·bf16(W)ᵀ + b) for the rows RoundRowsBf16
// made (with oneDNN's weights: every column, col_begin 0 and col_end out). A NaN stays NaN through
// every activation (relu too), and a row's NaN or infinity reaches that row's outputs only. out.y
// may not overlap xb. Serial: callers split rows and columns.
void Bf16LinearBlock(const uint16_t* xb, int64_t ldxb, int64_t rows, const Bf16Weights& w,
                     const OutputBlock& out);

}  // namespace phasor::kernels

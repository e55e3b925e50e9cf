// The fully connected layer in 8-bit integers, as dynamic quantization does it
// (ONNX Runtime's MatMulInteger form, PyTorch's quantize_dynamic):
//
//   y[rows, out] = act(dequantize(q(x)·Wqᵀ) + b),  W: [out, in] (nn.Linear.weight)
//
// Weights: quantized once at load, symmetric, one scale per output channel:
//   sw[c] = max_k |W[c, k]| / 127 (0 for an all-zero channel, whose Wq is 0,
//           and for one so small that the quotient underflows to 0),
//   Wq[c, k] = round_half_even(W[c, k] / sw[c]) clamped to [-127, 127].
// Activations: quantized per row just before the product, symmetric:
//   sx[r] = max_k |x[r, k]| / 127 (0 for an all-zero row, whose q is 0, and
//           for one whose max is so small, below about 3.7e-37, that
//           127 / max overflows),
//   q[r, k] = round_half_even(x[r, k] · (127 / max_k |x[r, k]|)) clamped to [-127, 127],
// stored as the unsigned byte q + 128 (what VNNI's u8 × s8 product takes).
// The product accumulates exactly in int32:
//   acc[r, c] = Σ_k q[r, k]·Wq[c, k] = Σ_k (q + 128)·Wq − 128·Σ_k Wq[c, k],
// then y = act(float(acc)·(sx[r]·sw[c]) + b[c]): a multiply and an add rounded
// apart (no FMA), so every target (avx512 with VNNI, avx2, portable) gives the
// same bits, for any thread count and any split of rows and columns.
//
// NaN or Inf in x makes its row's scale NaN (its q 0) and its outputs NaN; NaN
// or Inf in W does the same for that channel. Nothing traps.
//
// The packed layout: panels of 32 output channels, each [row_bytes / 4][32][4]
// int8 (channel p·32 + j's k = 4·kk + t at kk·128 + j·4 + t; zero past in and
// past out), 64-byte aligned, so that one 64-byte load gives 16 channels x 4 k
// for a vpdpbusd against a broadcast quadruple of a row's bytes.
//
// On the amx target (engine/cpu.h) weights made while it is chosen go to
// oneDNN instead (onednn_matmul.h): Wq the same bytes, reordered into its
// layout; oneDNN sums exactly in int32 (AMX's tdpbusd, VNNI's vpdpbusd) and
// the dequantization above stays phasor's, so the outputs are the same bits
// as every other target's. They keep running there whatever target is
// chosen later.
//
// tests/support/reference_int8.h holds the naive twins; phasor_bench's
// BM_Int8Linear times the product at encoder shapes.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/kernels/activations.h"
#include "engine/kernels/gemm.h"
#include "engine/kernels/onednn_matmul.h"

namespace phasor::kernels {

// W quantized and packed once for the chosen target's product.
class Int8Weights {
 public:
  Int8Weights() = default;
  // w: [out, in] row-major; b: [out] or null (no bias). Copies what it needs.
  // Throws Error for in above 66311, where the int32 sums could overflow.
  Int8Weights(const float* w, const float* b, int64_t out, int64_t in);

  int64_t out() const { return out_; }
  int64_t in() const { return in_; }
  // The row stride, in bytes, that QuantizeRowsInt8's output must have at
  // least (in rounded up to what the product reads at once; the bytes past in
  // are written by QuantizeRowsInt8; oneDNN's weights: in).
  int64_t row_bytes() const { return row_bytes_; }
  const float* scales() const;  // [out]: sw
  // Bytes held: about out·in (weights) plus a few floats per channel.
  int64_t bytes() const;

  // The packed layout is private to the kernels (gemm_int8*.cc).
  const int8_t* packed() const;
  const int32_t* column_sums() const;  // [out rounded up]: Σ_k Wq[c, k]
  const float* bias() const;           // [out rounded up], zero past out
  // Wq in oneDNN's layout instead of packed() (amx), or null.
  const OnednnMatmul* onednn() const { return onednn_.get(); }
  // The blocks a caller splits the product into (each a serial call of
  // Int8LinearBlock): rows and columns a block; oneDNN's take every column.
  int64_t block_rows() const { return onednn_ ? kOnednnRows : kPackedLinearRows; }
  int64_t block_cols() const { return onednn_ ? out_ : kPackedLinearCols; }

 private:
  int64_t out_ = 0, in_ = 0, row_bytes_ = 0;
  std::vector<int8_t> packed_;  // aligned within by offsets the .cc chooses
  std::vector<int32_t> sums_;
  std::vector<float> scales_, bias_;
  int64_t packed_offset_ = 0;
  std::shared_ptr<const OnednnMatmul> onednn_;
};

// Rows [0, rows) of x ([rows, in], row stride ldx, in = w.in()) quantized:
// q: [rows, w.row_bytes()] with row stride ldq >= w.row_bytes(); scales: [rows].
// Serial.
// Where QuantizeRowsInt8 writes: q [rows, ldq] bytes, ldq >= w.row_bytes(),
// and scales [rows].
struct QuantizedRows {
  uint8_t* q = nullptr;
  int64_t ldq = 0;
  float* scales = nullptr;
};
void QuantizeRowsInt8(const float* x, int64_t ldx, int64_t rows, const Int8Weights& w,
                      const QuantizedRows& out);

// One row as QuantizeRowsInt8 quantizes it: x [n] to q [n_bytes >= n] (the
// bytes past n 128, i.e. 0), returning its scale (0 for a zero row, NaN for a
// non-finite one, whose q is then all 128). Serial.
float QuantizeRowInt8(const float* x, int64_t n, int64_t n_bytes, uint8_t* q);

// The block's columns of y = act(dequantize(q·Wqᵀ) + b) for the rows
// QuantizeRowsInt8 made (with oneDNN's weights: every column, col_begin 0 and
// col_end out; y holds the int32 sums before their dequantization). Serial: callers split rows and
// columns.
void Int8LinearBlock(const uint8_t* q, int64_t ldq, const float* scales, int64_t rows,
                     const Int8Weights& w, const OutputBlock& out);

}  // namespace phasor::kernels

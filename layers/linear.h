// One nn.Linear of the encoder at the model's precision (layers/precision.h):
// its weights looked up by name and packed once at load, and its product.
//
//   y[rows, out] = act(x[rows, in]·Wᵀ + b),  W: [out, in] (nn.Linear.weight)
//
// fp32 runs engine/kernels/gemm.h's packed product; bf16 and int8 round or
// quantize each call's rows of x into caller-owned scratch first, then run the
// products of gemm_bf16.h and gemm_int8.h. The packed weights are a copy: a
// model releases the float32 W from its Weights as soon as the layer is built,
// so it holds them once, at 4, 2 or about 1 byte a parameter. Results depend
// on the values only (and the CPU target), never on the thread count or the
// split of rows.
#pragma once

#include <cstdint>
#include <string>

#include "engine/kernels/activations.h"
#include "engine/kernels/gemm.h"
#include "engine/kernels/gemm_bf16.h"
#include "engine/kernels/gemm_int8.h"
#include "engine/weights.h"
#include "layers/precision.h"

namespace phasor {

class Linear {
 public:
  Linear() = default;
  // W [out, in] under `weight` and b [out] under `bias`, required in that
  // order (a missing or misshapen tensor throws Error naming it), packed at
  // `precision`. An empty `bias`: a product without one (nn.Linear(bias=False)).
  Linear(const Weights& weights, const std::string& weight, const std::string& bias, int64_t out,
         int64_t in, Precision precision);

  int64_t out() const { return out_; }
  int64_t in() const { return in_; }
  Precision precision() const { return precision_; }
  // Bytes the packed weights hold.
  int64_t bytes() const;

  // Bytes of scratch a call on `rows` rows of `in` values needs at this
  // precision (0 for fp32): the rounded or quantized rows, their scales and
  // alignment slack.
  static int64_t ScratchBytes(Precision precision, int64_t rows, int64_t in);

  // Rows of a matrix with a row stride: row r at data + r·ld.
  struct StridedRows {
    const float* data;
    int64_t ld;
  };

  // Serial: rows [0, rows) of y = act(x·Wᵀ + b), every column.
  // x: [rows, in] row stride x.ld; y: [rows, out] row stride ldy, not
  // overlapping x; scratch: ScratchBytes(precision(), rows, in()) bytes.
  void Block(const StridedRows& x, int64_t rows, float* y, int64_t ldy, kernels::Activation act,
             uint8_t* scratch) const;

  // All of y: [rows, out] = act(x[rows, in]·Wᵀ + b) over ParallelTasks, in
  // tasks of kernels::kPackedLinearRows rows x kPackedLinearCols columns.
  // scratch: ScratchBytes(precision(), rows, in()) bytes.
  void Forward(const float* x, int64_t rows, float* y, kernels::Activation act,
               uint8_t* scratch) const;

 private:
  // The row stride of the rounded or quantized rows in scratch: 64-byte rows
  // for phasor's panels, dense for oneDNN's (the amx target).
  int64_t RowStride() const;
  // The rows [r0, r0 + n) of x rounded or quantized into scratch laid out for
  // `rows` rows; then their product for columns [c0, c1).
  void Prepare(const float* x, int64_t ldx, int64_t r0, int64_t n, int64_t rows,
               uint8_t* scratch) const;
  struct Tile {
    int64_t r0, n;   // rows [r0, r0 + n) of a call on
    int64_t rows;    // this many rows (scratch's layout)
    int64_t c0, c1;  // columns [c0, c1)
  };
  void Product(const Tile& tile, const uint8_t* scratch, float* y, int64_t ldy,
               kernels::Activation act) const;

  Precision precision_ = Precision::kFp32;
  int64_t out_ = 0, in_ = 0;
  kernels::PackedWeights fp32_;  // one of the three, as precision_ says
  kernels::Bf16Weights bf16_;
  kernels::Int8Weights int8_;
};

}  // namespace phasor

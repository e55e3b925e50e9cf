#include "layers/linear.h"

#include <algorithm>
#include <cassert>

#include "engine/error.h"
#include "engine/parallel.h"

namespace phasor {
namespace {

constexpr int64_t kAlign = 64;

int64_t RoundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// Scratch layout for `rows` rows of `in` values, from a 64-byte aligned base:
// int8: [rows, Int8Stride(in)] bytes, then [rows] float scales;
// bf16: [rows, Bf16Stride(in)] bfloat16 values. The rows themselves are that
// far apart, or `in` (dense) for oneDNN's weights (Linear::RowStride).
int64_t Int8Stride(int64_t in) { return RoundUp(in, kAlign); }
int64_t Bf16Stride(int64_t in) { return RoundUp(in, kAlign / 2); }

template <class Byte>
Byte* Aligned(Byte* p) {
  const auto skip = (kAlign - reinterpret_cast<uintptr_t>(p) % kAlign) % kAlign;
  return p + skip;
}

}  // namespace

Linear::Linear(const Weights& weights, const std::string& weight, const std::string& bias,
               int64_t out, int64_t in, Precision precision)
    : precision_(precision), out_(out), in_(in) {
  // A weight kept in bfloat16 (a BF16 file) goes into bf16 panels as it is,
  // without a float32 copy; the other precisions, and float32 files, read floats.
  const uint16_t* wb = weights.RequireBf16(weight, {out, in});             // [out, in] or null
  const float* b = bias.empty() ? nullptr : weights.Require(bias, {out});  // [out] or none
  const float* w = precision == Precision::kBf16 && wb != nullptr
                       ? nullptr
                       : weights.Require(weight, {out, in});  // [out, in]
  switch (precision) {
    case Precision::kFp32:
      fp32_ = kernels::PackedWeights(w, b, out, in);
      break;
    case Precision::kBf16:
      bf16_ = wb != nullptr ? kernels::Bf16Weights(wb, b, out, in)
                            : kernels::Bf16Weights(w, b, out, in);
      if (bf16_.row_values() > Bf16Stride(in)) throw Error("bf16 rows wider than their scratch");
      break;
    case Precision::kInt8:
      int8_ = kernels::Int8Weights(w, b, out, in);
      if (int8_.row_bytes() > Int8Stride(in)) throw Error("int8 rows wider than their scratch");
      break;
  }
}

int64_t Linear::bytes() const {
  switch (precision_) {
    case Precision::kFp32:
      return fp32_.bytes();
    case Precision::kBf16:
      return bf16_.bytes();
    case Precision::kInt8:
      return int8_.bytes();
  }
  return 0;
}

int64_t Linear::ScratchBytes(Precision precision, int64_t rows, int64_t in) {
  switch (precision) {
    case Precision::kFp32:
      return 0;
    case Precision::kBf16:
      return rows * Bf16Stride(in) * 2 + kAlign;
    case Precision::kInt8:
      return rows * Int8Stride(in) + RoundUp(rows * 4, kAlign) + kAlign;
  }
  return 0;
}

int64_t Linear::RowStride() const {
  if (precision_ == Precision::kBf16) return bf16_.onednn() != nullptr ? in_ : Bf16Stride(in_);
  return int8_.onednn() != nullptr ? in_ : Int8Stride(in_);
}

void Linear::Prepare(const float* x, int64_t ldx, int64_t r0, int64_t n, int64_t rows,
                     uint8_t* scratch) const {
  uint8_t* base = Aligned(scratch);
  if (precision_ == Precision::kBf16) {
    const int64_t ld = RowStride();
    auto* xb = reinterpret_cast<uint16_t*>(base) + r0 * ld;  // [n, ld]
    kernels::RoundRowsBf16(x, ldx, n, bf16_, xb, ld);
  } else if (precision_ == Precision::kInt8) {
    const int64_t ld = RowStride();
    auto* scales = reinterpret_cast<float*>(base + rows * Int8Stride(in_));  // [rows]
    kernels::QuantizeRowsInt8(x, ldx, n, int8_, {base + r0 * ld, ld, scales + r0});
  }
}

void Linear::Product(const Tile& tile, const uint8_t* scratch, float* y, int64_t ldy,
                     kernels::Activation act) const {
  const auto [r0, n, rows, c0, c1] = tile;
  const uint8_t* base = Aligned(scratch);
  if (precision_ == Precision::kBf16) {
    const int64_t ld = RowStride();
    const auto* xb = reinterpret_cast<const uint16_t*>(base) + r0 * ld;
    kernels::Bf16LinearBlock(xb, ld, n, bf16_, {c0, c1, y, ldy, act});
  } else {
    const int64_t ld = RowStride();
    const auto* scales = reinterpret_cast<const float*>(base + rows * Int8Stride(in_));
    kernels::Int8LinearBlock(base + r0 * ld, ld, scales + r0, n, int8_, {c0, c1, y, ldy, act});
  }
}

void Linear::Block(const StridedRows& in, int64_t rows, float* y, int64_t ldy,
                   kernels::Activation act, uint8_t* scratch) const {
  const float* x = in.data;
  const int64_t ldx = in.ld;
  assert(rows >= 0);
  if (rows == 0 || out_ == 0) return;
  if (precision_ == Precision::kFp32) {
    kernels::PackedLinearBlock(x, ldx, rows, fp32_, {0, out_, y, ldy, act});
    return;
  }
  Prepare(x, ldx, 0, rows, rows, scratch);
  Product({0, rows, rows, 0, out_}, scratch, y, ldy, act);
}

void Linear::Forward(const float* x, int64_t rows, float* y, kernels::Activation act,
                     uint8_t* scratch) const {
  assert(rows >= 0);
  if (rows == 0 || out_ == 0) return;
  if (precision_ == Precision::kFp32) {
    kernels::PackedLinear(x, rows, fp32_, y, act);
    return;
  }
  const bool bf16 = precision_ == Precision::kBf16;
  const int64_t tile_rows = bf16 ? bf16_.block_rows() : int8_.block_rows();
  const int64_t tile_cols = bf16 ? bf16_.block_cols() : int8_.block_cols();
  const int64_t row_tiles = (rows + tile_rows - 1) / tile_rows;
  const int64_t col_tiles = (out_ + tile_cols - 1) / tile_cols;
  // Each row rounded or quantized once, then the tiles of the product.
  ParallelTasks(row_tiles, 0, [&](int64_t t, int /*slot*/) {
    const int64_t r0 = t * tile_rows;
    Prepare(x + r0 * in_, in_, r0, std::min(tile_rows, rows - r0), rows, scratch);
  });
  ParallelTasks(row_tiles * col_tiles, 0, [&](int64_t t, int /*slot*/) {
    const int64_t r0 = t / col_tiles * tile_rows;
    const int64_t c0 = t % col_tiles * tile_cols;
    const Tile tile{r0, std::min(tile_rows, rows - r0), rows, c0, std::min(out_, c0 + tile_cols)};
    Product(tile, scratch, y + r0 * out_, out_, act);
  });
}

}  // namespace phasor

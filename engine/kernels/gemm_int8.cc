// The int8 product's shared half: quantizing W at load (plain C++), the rows
// per call (the chosen target's kernels: the same operations, the same bytes
// on every target), and the walk over 32-column panels that calls the chosen
// target's panel kernel.
#include "engine/kernels/gemm_int8.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "engine/cpu.h"
#include "engine/error.h"
#include "engine/kernels/kernel_table.h"
#include "engine/kernels/onednn_matmul.h"

namespace phasor::kernels {
namespace {

constexpr int64_t kPanel = 32;       // output columns per packed panel
constexpr int64_t kQuad = 4;         // k values per 32-bit group of the panel
constexpr int64_t kAlignBytes = 64;  // panels start on a cache line

// The largest in whose sums Σ_k (q + 128)·Wq (|term| <= 255·127) fit int32.
constexpr int64_t kMaxIn = std::numeric_limits<int32_t>::max() / (255 * 127);

// v rounded to the nearest integer, ties to even, for |v| <= 2^22: adding and
// subtracting 1.5·2^23 leaves the integer part in the float's last bit under
// the default rounding mode (no -ffast-math: the two adds stay). The compiler
// vectorises it, where std::nearbyint is a call.
inline float RoundHalfEven(float v) {
  constexpr float kMagic = 12582912.0f;  // 1.5·2^23
  return (v + kMagic) - kMagic;
}

inline int64_t RoundUp(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

}  // namespace

Int8Weights::Int8Weights(const float* w, const float* b, int64_t out, int64_t in)
    : out_(out), in_(in), row_bytes_(RoundUp(in, kQuad)) {
  assert(out >= 0 && in >= 0);
  if (in > kMaxIn) {
    throw Error("int8 product: in " + std::to_string(in) + " exceeds " + std::to_string(kMaxIn) +
                " (the int32 sums would overflow)");
  }
  const int64_t padded_out = RoundUp(out, kPanel);
  // amx: Wq [out, in] row-major for oneDNN's reorder, instead of the panels;
  // oneDNN reads dense rows of q.
  const bool onednn = ActiveIsa() == Isa::kAmx;
  if (onednn) row_bytes_ = in;
  const int64_t k4 = row_bytes_ / kQuad;
  std::vector<int8_t> plain(onednn ? static_cast<size_t>(out * in) : 0);
  packed_.assign(static_cast<size_t>((onednn ? 0 : padded_out * row_bytes_) + kAlignBytes), 0);
  const uintptr_t misalignment = reinterpret_cast<uintptr_t>(packed_.data()) % kAlignBytes;
  packed_offset_ = misalignment == 0 ? 0 : static_cast<int64_t>(kAlignBytes - misalignment);
  sums_.assign(static_cast<size_t>(padded_out), 0);
  scales_.assign(static_cast<size_t>(padded_out), 0.0f);
  bias_.assign(static_cast<size_t>(padded_out), 0.0f);
  if (b != nullptr) std::copy(b, b + out, bias_.begin());
  int8_t* packed = packed_.data() + packed_offset_;  // [padded_out / 32][k4][32][4]
  for (int64_t c = 0; c < out; ++c) {
    const float* row = w + c * in;  // W[c, :]
    bool finite = true;
    const float m = Kernels().int8_max_abs(row, in, &finite);
    const float sw = finite ? m / 127.0f : std::numeric_limits<float>::quiet_NaN();
    scales_[c] = sw;
    // A non-finite channel's outputs are NaN through its scale; an all-zero
    // one (or one so small that m / 127 is 0) has Wq = 0.
    if (!finite || sw == 0.0f) continue;
    int8_t* panel = onednn ? plain.data() + c * in
                           : packed + c / kPanel * (k4 * kPanel * kQuad) + c % kPanel * kQuad;
    int32_t sum = 0;
    for (int64_t k = 0; k < in; ++k) {
      const float v = std::clamp(RoundHalfEven(row[k] / sw), -127.0f, 127.0f);
      const auto wq = static_cast<int8_t>(v);
      panel[onednn ? k : k / kQuad * (kPanel * kQuad) + k % kQuad] = wq;
      sum += wq;
    }
    sums_[c] = sum;
  }
  if (onednn) onednn_ = OnednnMatmul::MakeInt8(plain.data(), out, in);
}

const float* Int8Weights::scales() const { return scales_.data(); }
const int8_t* Int8Weights::packed() const { return packed_.data() + packed_offset_; }
const int32_t* Int8Weights::column_sums() const { return sums_.data(); }
const float* Int8Weights::bias() const { return bias_.data(); }

int64_t Int8Weights::bytes() const {
  return static_cast<int64_t>(packed_.size() + sizeof(int32_t) * sums_.size() +
                              sizeof(float) * (scales_.size() + bias_.size())) +
         (onednn_ != nullptr ? onednn_->bytes() : 0);
}

float QuantizeRowInt8(const float* x, int64_t n, int64_t n_bytes, uint8_t* q) {
  assert(n >= 0 && n_bytes >= n);
  const KernelTable& kernels = Kernels();
  bool finite = true;
  const float m = kernels.int8_max_abs(x, n, &finite);
  const float inv = 127.0f / m;
  // Zero rows, and rows so small that 127 / m overflows, quantize to 0; a
  // non-finite row to 0 with a NaN scale, so its outputs are NaN.
  if (!finite || !(inv <= std::numeric_limits<float>::max())) {
    std::fill(q, q + n_bytes, uint8_t{128});
    return finite ? 0.0f : std::numeric_limits<float>::quiet_NaN();
  }
  kernels.int8_quantize(x, n, inv, q);
  std::fill(q + n, q + n_bytes, uint8_t{128});
  return m / 127.0f;
}

void QuantizeRowsInt8(const float* x, int64_t ldx, int64_t rows, const Int8Weights& w,
                      const QuantizedRows& out) {
  assert(rows >= 0 && out.ldq >= w.row_bytes());
  for (int64_t r = 0; r < rows; ++r) {
    out.scales[r] = QuantizeRowInt8(x + r * ldx, w.in(), w.row_bytes(), out.q + r * out.ldq);
  }
}

namespace {

// y = float(acc - 128·sums)·(sx·sw) + b (relu: max(y, 0)) over the int32
// sums oneDNN left in the block's rows, in place: the panel kernels' epilogue
// (gemm_int8_portable.cc, StoreInt8Row), rounding for rounding.
void DequantizeRows(const float* row_scales, int64_t rows, const Int8Weights& w,
                    const OutputBlock& out) {
  const int32_t* sums = w.column_sums();
  const float *scales = w.scales(), *bias = w.bias();
  const bool relu = out.act == Activation::kRelu;
  for (int64_t r = 0; r < rows; ++r) {
    float* y = out.y + r * out.ldy;  // [out]: int32 sums, then floats
    const float sx = row_scales[r];
    for (int64_t j = 0; j < w.out(); ++j) {
      int32_t acc;
      std::memcpy(&acc, y + j, sizeof(acc));
      const float v = static_cast<float>(acc - 128 * sums[j]) * (sx * scales[j]) + bias[j];
      y[j] = relu ? std::max(v, 0.0f) : v;
    }
  }
}

}  // namespace

void Int8LinearBlock(const uint8_t* q, int64_t ldq, const float* scales, int64_t rows,
                     const Int8Weights& w, const OutputBlock& out) {
  assert(rows >= 0 && out.col_begin % kPanel == 0 && out.col_end <= w.out());
  assert(ldq >= w.row_bytes());
  if (w.onednn() != nullptr) {
    assert(out.col_begin == 0 && out.col_end == w.out());
    // oneDNN's int32 sums land in y's floats (the same size), read back by memcpy.
    w.onednn()->RunInt8(q, ldq, rows, reinterpret_cast<int32_t*>(out.y), out.ldy);
    DequantizeRows(scales, rows, w, out);
    FinishBlock(rows, out);
    return;
  }
  const int64_t k4 = w.row_bytes() / kQuad;
  const auto int8_panel = Kernels().int8_panel;
  for (int64_t c0 = out.col_begin; c0 < out.col_end; c0 += kPanel) {
    const int64_t n_valid = std::min(kPanel, out.col_end - c0);
    int8_panel(Int8PanelArgs{q, ldq, rows, scales, w.packed() + c0 * w.row_bytes(), k4,
                             w.column_sums() + c0, w.scales() + c0, w.bias() + c0,
                             out.act == Activation::kRelu, out.y + c0, out.ldy, n_valid,
                             NextPanel(w.packed(), kPanel * w.row_bytes(), c0 / kPanel,
                                       (w.out() + kPanel - 1) / kPanel)});
  }
  FinishBlock(rows, out);
}

}  // namespace phasor::kernels

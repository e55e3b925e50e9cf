// The int8 product's kernels in plain C++ (the reference the other targets
// are tested against). The panel: exact int32 sums, then the same multiply and
// add as every other target (-ffp-contract=off: they round apart). The rows'
// quantization: scalar loops the compiler vectorises.
//
// Written for the compiler's vectoriser (SSE2, NEON): a chunk of kQuads k
// quads of the panel is laid out once per block of rows as 16-bit columns
// (column j's k values side by side), and each row's chunk as 16-bit values,
// so that every output's sum over the chunk is a dot product of two 16-bit
// arrays, which the compiler turns into its multiply-and-add-pairs
// instructions (SSE2's pmaddwd). The packed [k/4][32][4] layout, made for
// VNNI, would instead need every column's four bytes gathered per step.
// Integer sums are exact, so their order does not change a bit.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::portable {
namespace {

constexpr int kPanel = 32;
constexpr int kQuad = 4;
constexpr int64_t kQuads = 64;      // k quads per chunk: 256 k
constexpr int64_t kBlockRows = 32;  // rows sharing one layout of a chunk
constexpr int64_t kChunkK = kQuad * kQuads;

// v rounded to the nearest integer, ties to even, for |v| <= 2^22: adding and
// subtracting 1.5·2^23 leaves the integer part in the float's last bit under
// the default rounding mode (no -ffast-math: the two adds stay). The compiler
// vectorises it, where std::nearbyint is a call.
inline float RoundHalfEven(float v) {
  constexpr float kMagic = 12582912.0f;  // 1.5·2^23
  return (v + kMagic) - kMagic;
}

// Σ_t x[t]·w[t], t < n: 8-bit values widened to 16 bits, exact in int32.
inline int32_t Dot(const int16_t* __restrict x, const int16_t* __restrict w, int64_t n) {
  int32_t s = 0;
  for (int64_t t = 0; t < n; ++t) s += static_cast<int32_t>(x[t]) * static_cast<int32_t>(w[t]);
  return s;
}

}  // namespace

void Int8Panel(const Int8PanelArgs& p) {
  alignas(64) int16_t wt[kPanel * kChunkK];      // [32, kChunkK]: the chunk's columns
  alignas(64) int16_t xt[kChunkK];               // [kChunkK]: one row's chunk
  alignas(64) int32_t acc[kBlockRows * kPanel];  // [kBlockRows, 32]: the block's sums
  for (int64_t r0 = 0; r0 < p.rows; r0 += kBlockRows) {
    const int64_t nr = std::min(kBlockRows, p.rows - r0);
    std::fill(acc, acc + nr * kPanel, 0);
    for (int64_t q0 = 0; q0 < p.k4; q0 += kQuads) {
      const int64_t nq = std::min(kQuads, p.k4 - q0);
      const int64_t n = kQuad * nq;
      for (int64_t kk = 0; kk < nq; ++kk) {
        const int8_t* w = p.panel + (q0 + kk) * kPanel * kQuad;  // [32][4]
        for (int j = 0; j < kPanel; ++j) {
          for (int t = 0; t < kQuad; ++t) wt[j * kChunkK + kQuad * kk + t] = w[j * kQuad + t];
        }
      }
      for (int64_t r = 0; r < nr; ++r) {
        const uint8_t* x = p.q + (r0 + r) * p.ldq + kQuad * q0;
        for (int64_t t = 0; t < n; ++t) xt[t] = x[t];
        for (int j = 0; j < kPanel; ++j) acc[r * kPanel + j] += Dot(xt, wt + j * kChunkK, n);
      }
    }
    for (int64_t r = 0; r < nr; ++r) {
      float* c = p.c + (r0 + r) * p.ldc;
      for (int64_t j = 0; j < p.n_valid; ++j) {
        const float scale = p.row_scales[r0 + r] * p.scales[j];
        const float v =
            static_cast<float>(acc[r * kPanel + j] - 128 * p.sums[j]) * scale + p.bias[j];
        c[j] = p.relu ? std::max(v, 0.0f) : v;
      }
    }
  }
}

float Int8MaxAbs(const float* x, int64_t n, bool* finite) {
  float m = 0.0f, nan = 0.0f;
  for (int64_t k = 0; k < n; ++k) {
    const float a = std::abs(x[k]);
    m = a > m ? a : m;  // a NaN leaves m
    nan += a * 0.0f;    // |x|·0 is NaN for NaN and infinities
  }
  *finite = nan == 0.0f;
  return m;
}

void Int8Quantize(const float* x, int64_t n, float inv, uint8_t* q) {
  for (int64_t k = 0; k < n; ++k) {
    const float v = std::clamp(RoundHalfEven(x[k] * inv), -127.0f, 127.0f);
    q[k] = static_cast<uint8_t>(static_cast<int32_t>(v) + 128);
  }
}

}  // namespace phasor::kernels::portable

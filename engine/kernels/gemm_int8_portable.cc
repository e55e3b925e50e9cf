// The int8 product's panel kernel in plain C++: exact int32 sums, then the
// same multiply and add as every other target (-ffp-contract=off: they round
// apart).
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
#include <cstdint>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::portable {
namespace {

constexpr int kPanel = 32;
constexpr int kQuad = 4;
constexpr int64_t kQuads = 64;      // k quads per chunk: 256 k
constexpr int64_t kBlockRows = 32;  // rows sharing one layout of a chunk
constexpr int64_t kChunkK = kQuad * kQuads;

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

// No vectors here: gemm_int8.cc's loops quantize the whole row.
int64_t Int8MaxAbs(const float* /*x*/, int64_t /*n*/, float* /*max_abs*/, bool* /*finite*/) {
  return 0;
}
int64_t Int8Quantize(const float* /*x*/, int64_t /*n*/, float /*inv*/, uint8_t* /*q*/) { return 0; }

}  // namespace phasor::kernels::portable

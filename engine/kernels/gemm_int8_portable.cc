// The int8 product's panel kernel in plain C++ (the compiler vectorises the
// integer sums for the baseline): exact int32 sums, then the same multiply and
// add as every other target (-ffp-contract=off: they round apart).
#include <algorithm>
#include <cstdint>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::portable {
namespace {

constexpr int kPanel = 32;
constexpr int kQuad = 4;
constexpr int64_t kRows = 4;  // rows of a tile

// Rows [0, MR) of the panel (Int8PanelArgs).
template <int MR>
void Tile(const Int8PanelArgs& p, const uint8_t* q, const float* row_scales, float* c) {
  int32_t acc[MR][kPanel] = {};
  for (int64_t kk = 0; kk < p.k4; ++kk) {
    const int8_t* w = p.panel + kk * kPanel * kQuad;  // [32][4]
    for (int r = 0; r < MR; ++r) {
      const uint8_t* x = q + r * p.ldq + kk * kQuad;
      const int32_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
      for (int j = 0; j < kPanel; ++j) {
        acc[r][j] += x0 * w[j * kQuad] + x1 * w[j * kQuad + 1] + x2 * w[j * kQuad + 2] +
                     x3 * w[j * kQuad + 3];
      }
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int64_t j = 0; j < p.n_valid; ++j) {
      const float scale = row_scales[r] * p.scales[j];
      const float v = static_cast<float>(acc[r][j] - 128 * p.sums[j]) * scale + p.bias[j];
      c[r * p.ldc + j] = p.relu ? std::max(v, 0.0f) : v;
    }
  }
}

using TileFn = void (*)(const Int8PanelArgs&, const uint8_t*, const float*, float*);
constexpr TileFn kTiles[kRows + 1] = {nullptr, Tile<1>, Tile<2>, Tile<3>, Tile<4>};

}  // namespace

void Int8Panel(const Int8PanelArgs& p) {
  for (int64_t r0 = 0; r0 < p.rows; r0 += kRows) {
    const int64_t mr = p.rows - r0 < kRows ? p.rows - r0 : kRows;
    kTiles[mr](p, p.q + r0 * p.ldq, p.row_scales + r0, p.c + r0 * p.ldc);
  }
}

// No vectors here: gemm_int8.cc's loops quantize the whole row.
int64_t Int8MaxAbs(const float* /*x*/, int64_t /*n*/, float* /*max_abs*/, bool* /*finite*/) {
  return 0;
}
int64_t Int8Quantize(const float* /*x*/, int64_t /*n*/, float /*inv*/, uint8_t* /*q*/) { return 0; }

}  // namespace phasor::kernels::portable

// The bfloat16 product's panel kernel in plain C++ (the reference the other
// targets are tested against): bfloat16 widened to float (exact), then per
// output the bias and, in k order, one multiply and one add per k (the product
// of two bfloat16 values is exact in float, so only the adds round).
#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::portable {
namespace {

constexpr int kPanel = 32;
constexpr int64_t kRows = 4;  // rows of the tile

inline float Widen(uint16_t v) {
  const uint32_t u = uint32_t{v} << 16;
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

// All 32 columns are computed (the panel is zero past the valid ones and the
// bias has 32 values); only the first n_valid are stored.
template <int MR>
void Tile(const uint16_t* a, int64_t lda, const uint16_t* panel, int64_t pairs, const float* bias,
          bool relu, float* c, int64_t ldc, int64_t n_valid) {
  float acc[MR][kPanel];
  for (int r = 0; r < MR; ++r) {
    for (int j = 0; j < kPanel; ++j) acc[r][j] = bias[j];
  }
  for (int64_t i = 0; i < pairs; ++i) {
    const uint16_t* w = panel + i * 2 * kPanel;  // [32, 2]: W[j, 2i + t] at w[2j + t]
    float w0[kPanel], w1[kPanel];
    for (int j = 0; j < kPanel; ++j) {
      w0[j] = Widen(w[2 * j]);
      w1[j] = Widen(w[2 * j + 1]);
    }
    for (int r = 0; r < MR; ++r) {
      const float x0 = Widen(a[r * lda + 2 * i]), x1 = Widen(a[r * lda + 2 * i + 1]);
      for (int j = 0; j < kPanel; ++j) acc[r][j] += x0 * w0[j];
      for (int j = 0; j < kPanel; ++j) acc[r][j] += x1 * w1[j];
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int64_t j = 0; j < n_valid; ++j) {
      const float v = acc[r][j];
      c[r * ldc + j] = relu && v < 0.0f ? 0.0f : v;  // a NaN stays
    }
  }
}

using TileFn = void (*)(const uint16_t*, int64_t, const uint16_t*, int64_t, const float*, bool,
                        float*, int64_t, int64_t);
constexpr TileFn kTiles[kRows + 1] = {nullptr, Tile<1>, Tile<2>, Tile<3>, Tile<4>};

}  // namespace

void Bf16Panel(const Bf16PanelArgs& p) {
  for (int64_t r0 = 0; r0 < p.rows; r0 += kRows) {
    const int64_t mr = p.rows - r0 < kRows ? p.rows - r0 : kRows;
    kTiles[mr](p.a + r0 * p.lda, p.lda, p.panel, p.pairs, p.bias, p.relu, p.c + r0 * p.ldc, p.ldc,
               p.n_valid);
  }
}

}  // namespace phasor::kernels::portable

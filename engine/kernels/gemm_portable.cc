// The packed product's panel kernel in plain C++ (the reference the other
// targets are tested against): per output, the initial value then one
// multiply and one add per k, in k order.
#include <algorithm>
#include <cstdint>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::portable {
namespace {

constexpr int kPanel = 32;
constexpr int64_t kRows = 8;

// No contraction (-ffp-contract=off): the multiply and the add round apart.
template <int MR>
void Tile(const float* a, int64_t lda, const float* panel, int64_t ldp, int64_t k,
          const float* bias, bool accumulate, bool relu, float* c, int64_t ldc, int64_t n_valid) {
  float acc[MR][kPanel] = {};
  for (int r = 0; r < MR; ++r) {
    for (int64_t j = 0; j < n_valid; ++j) acc[r][j] = accumulate ? c[r * ldc + j] : bias[j];
  }
  for (int64_t kk = 0; kk < k; ++kk) {
    const float* w = panel + kk * ldp;
    for (int r = 0; r < MR; ++r) {
      const float x = a[r * lda + kk];
      for (int64_t j = 0; j < n_valid; ++j) acc[r][j] += x * w[j];
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int64_t j = 0; j < n_valid; ++j) {
      c[r * ldc + j] = relu ? std::max(acc[r][j], 0.0f) : acc[r][j];
    }
  }
}

using TileFn = void (*)(const float*, int64_t, const float*, int64_t, int64_t, const float*, bool,
                        bool, float*, int64_t, int64_t);
constexpr TileFn kTiles[kRows + 1] = {nullptr, Tile<1>, Tile<2>, Tile<3>, Tile<4>,
                                      Tile<5>, Tile<6>, Tile<7>, Tile<8>};

}  // namespace

void GemmPanel(const PanelArgs& p) {
  for (int64_t r0 = 0; r0 < p.rows; r0 += kRows) {
    const int64_t mr = p.rows - r0 < kRows ? p.rows - r0 : kRows;
    kTiles[mr](p.a + r0 * p.lda, p.lda, p.panel, p.ldp, p.k, p.bias, p.accumulate, p.relu,
               p.c + r0 * p.ldc, p.ldc, p.n_valid);
  }
}

}  // namespace phasor::kernels::portable

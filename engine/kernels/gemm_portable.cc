// The packed product's panel kernel in plain C++ (the reference the other
// targets are tested against): per output, the initial value then one
// multiply and one add per k, in k order.
//
// A full panel is worked kChunk columns at a time in Eigen arrays of fixed
// size, which the compiler keeps in vector registers (SSE2: 12 of its 16,
// NEON alike) across the whole k loop; a tile of all 32 columns would not fit
// and would go through memory at every step. The operations per output, and
// so the bits, are the same whatever the tile's shape.
#include <algorithm>
#include <cstdint>

#include "engine/kernels/kernel_table.h"
#include "engine/tensor.h"

namespace phasor::kernels::portable {
namespace {

constexpr int kPanel = 32;
constexpr int64_t kRows = 6;  // rows of the tile
constexpr int kChunk = 8;     // columns of a full panel per pass

// No contraction (-ffp-contract=off): the multiply and the add round apart.
// A full panel (n_valid = kPanel): every bound a constant, the sums in registers.
template <int MR>
void FullTile(const float* a, int64_t lda, const float* panel, int64_t ldp, int64_t k,
              const float* bias, bool accumulate, bool relu, float* c, int64_t ldc) {
  using Chunk = Eigen::Array<float, kChunk, 1>;  // [kChunk]: one row's columns of the pass
  for (int c0 = 0; c0 < kPanel; c0 += kChunk) {
    Chunk acc[MR];  // [rows][kChunk]
    for (int r = 0; r < MR; ++r) {
      acc[r] = Eigen::Map<const Chunk>(accumulate ? c + r * ldc + c0 : bias + c0);
    }
    for (int64_t kk = 0; kk < k; ++kk) {
      const Chunk w = Eigen::Map<const Chunk>(panel + kk * ldp + c0);
      for (int r = 0; r < MR; ++r) acc[r] += a[r * lda + kk] * w;
    }
    for (int r = 0; r < MR; ++r) {
      Eigen::Map<Chunk> out(c + r * ldc + c0);
      if (relu) {
        out = acc[r].unaryExpr([](float v) { return std::max(v, 0.0f); });
      } else {
        out = acc[r];
      }
    }
  }
}

// Rows [0, MR) of a panel: FullTile where all kPanel columns are valid, else
// the first n_valid columns alone (a panel's last ones: nothing past them is
// read).
template <int MR>
void Tile(const float* a, int64_t lda, const float* panel, int64_t ldp, int64_t k,
          const float* bias, bool accumulate, bool relu, float* c, int64_t ldc, int64_t n_valid) {
  if (n_valid == kPanel) {
    FullTile<MR>(a, lda, panel, ldp, k, bias, accumulate, relu, c, ldc);
    return;
  }
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
constexpr TileFn kTiles[kRows + 1] = {nullptr, Tile<1>, Tile<2>, Tile<3>,
                                      Tile<4>, Tile<5>, Tile<6>};

}  // namespace

void GemmPanel(const PanelArgs& p) {
  for (int64_t r0 = 0; r0 < p.rows; r0 += kRows) {
    const int64_t mr = p.rows - r0 < kRows ? p.rows - r0 : kRows;
    kTiles[mr](p.a + r0 * p.lda, p.lda, p.panel, p.ldp, p.k, p.bias, p.accumulate, p.relu,
               p.c + r0 * p.ldc, p.ldc, p.n_valid);
  }
}

}  // namespace phasor::kernels::portable

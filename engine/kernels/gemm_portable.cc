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

#include "engine/kernels/tile_rows.inc"

constexpr int kPanel = 32;
constexpr int64_t kRows = 6;  // rows of the tile
constexpr int kChunk = 8;     // columns of a full panel per pass

// No contraction (-ffp-contract=off): the multiply and the add round apart.
// A full panel (n_valid = kPanel): every bound a constant, the sums in registers.
template <int MR>
void FullTile(const PanelArgs& t) {
  const float* a = t.a;
  float* c = t.c;
  const int64_t lda = t.lda, ldc = t.ldc;
  using Chunk = Eigen::Array<float, kChunk, 1>;  // [kChunk]: one row's columns of the pass
  for (int c0 = 0; c0 < kPanel; c0 += kChunk) {
    Chunk acc[MR];  // [rows][kChunk]
    for (int r = 0; r < MR; ++r) {
      acc[r] = Eigen::Map<const Chunk>(t.accumulate ? c + r * ldc + c0 : t.bias + c0);
    }
    for (int64_t kk = 0; kk < t.k; ++kk) {
      const Chunk w = Eigen::Map<const Chunk>(t.panel + kk * t.ldp + c0);
      for (int r = 0; r < MR; ++r) acc[r] += a[r * lda + kk] * w;
    }
    for (int r = 0; r < MR; ++r) {
      Eigen::Map<Chunk> out(c + r * ldc + c0);
      if (t.relu) {
        out = acc[r].unaryExpr([](float v) { return std::max(v, 0.0f); });
      } else {
        out = acc[r];
      }
    }
  }
}

// Rows [0, MR) of a panel (t holds MR rows): FullTile where all kPanel columns are valid, else
// the first n_valid columns alone (a panel's last ones: nothing past them is
// read).
template <int MR>
void Tile(const PanelArgs& t) {
  if (t.n_valid == kPanel) {
    FullTile<MR>(t);
    return;
  }
  float acc[MR][kPanel] = {};
  for (int r = 0; r < MR; ++r) {
    for (int64_t j = 0; j < t.n_valid; ++j) {
      acc[r][j] = t.accumulate ? t.c[r * t.ldc + j] : t.bias[j];
    }
  }
  for (int64_t kk = 0; kk < t.k; ++kk) {
    const float* w = t.panel + kk * t.ldp;
    for (int r = 0; r < MR; ++r) {
      const float x = t.a[r * t.lda + kk];
      for (int64_t j = 0; j < t.n_valid; ++j) acc[r][j] += x * w[j];
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int64_t j = 0; j < t.n_valid; ++j) {
      t.c[r * t.ldc + j] = t.relu ? std::max(acc[r][j], 0.0f) : acc[r][j];
    }
  }
}

constexpr void (*kTiles[kRows + 1])(const PanelArgs&) = {nullptr, PHASOR_TILES_6};

}  // namespace

void GemmPanel(const PanelArgs& p) { ForRowTiles<kRows>(p, kTiles); }

}  // namespace phasor::kernels::portable

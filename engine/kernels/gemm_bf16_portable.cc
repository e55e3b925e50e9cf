// The bfloat16 product's panel kernel in plain C++ (the reference the other
// targets are tested against): bfloat16 widened to float (exact), then per
// output the bias and, in k order, one multiply and one add per k (the product
// of two bfloat16 values is exact in float, so only the adds round).
//
// That is the portable float product's arithmetic (gemm_portable.cc), so a
// chunk of kChunk k pairs of the panel is widened once into a buffer on the
// stack ([2·kChunk, 32] floats, in L1), the rows' chunk likewise, kBlock rows
// at a time, and the float product's register tile does the rest. Between
// chunks the sums wait in c (GemmPanel's accumulate): the sums and their order
// are those of one pass.
#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::portable {
namespace {

constexpr int kPanel = 32;
constexpr int64_t kChunk = 64;  // k pairs widened at a time: 16 KiB of weights
constexpr int64_t kBlock = 24;  // rows widened at a time: 12 KiB

inline float Widen(uint16_t v) {
  const uint32_t u = uint32_t{v} << 16;
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

}  // namespace

void Bf16Panel(const Bf16PanelArgs& p) {
  alignas(64) float wf[2 * kChunk * kPanel];  // [2·kChunk, 32]: the chunk's weights in float
  alignas(64) float xf[kBlock * 2 * kChunk];  // [kBlock, 2·kChunk]: the rows' chunk in float
  int64_t i0 = 0;
  do {  // at least once: with no k, the bias alone
    const int64_t n_pairs = p.pairs - i0 < kChunk ? p.pairs - i0 : kChunk;
    for (int64_t i = 0; i < n_pairs; ++i) {
      const uint16_t* w = p.panel + (i0 + i) * 2 * kPanel;  // [32, 2]: W[j, 2i + t] at w[2j + t]
      for (int j = 0; j < kPanel; ++j) {
        wf[2 * i * kPanel + j] = Widen(w[2 * j]);
        wf[(2 * i + 1) * kPanel + j] = Widen(w[2 * j + 1]);
      }
    }
    const bool first = i0 == 0, last = i0 + n_pairs == p.pairs;
    for (int64_t r0 = 0; r0 < p.rows; r0 += kBlock) {
      const int64_t nr = p.rows - r0 < kBlock ? p.rows - r0 : kBlock;
      for (int64_t r = 0; r < nr; ++r) {
        const uint16_t* src = p.a + (r0 + r) * p.lda + 2 * i0;
        for (int64_t k = 0; k < 2 * n_pairs; ++k) xf[r * 2 * kChunk + k] = Widen(src[k]);
      }
      GemmPanel(PanelArgs{xf, 2 * kChunk, nr, wf, kPanel, 2 * n_pairs, p.bias, !first,
                          p.relu && last, p.c + r0 * p.ldc, p.ldc, p.n_valid});
    }
    i0 += n_pairs;
  } while (i0 < p.pairs);
}

}  // namespace phasor::kernels::portable

// The bfloat16 product's panel kernel in plain C++ (the reference the other
// targets are tested against): bfloat16 widened to float (exact), then per
// output the bias and, in k order, one multiply and one add per k (the product
// of two bfloat16 values is exact in float, so only the adds round). That is
// the portable float product's arithmetic (gemm_portable.cc), which
// gemm_bf16_widening.inc runs on widened chunks.
#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::portable {
namespace {

#include "engine/bfloat16_bits.inc"

void WidenPairs(const uint16_t* w, int64_t n_pairs, float* wf) {
  for (int64_t i = 0; i < n_pairs; ++i, w += 2 * 32) {  // [32, 2]: W[j, 2i + t] at w[2j + t]
    for (int j = 0; j < 32; ++j) {
      wf[2 * i * 32 + j] = BFloat16ToFloat(w[2 * j]);
      wf[(2 * i + 1) * 32 + j] = BFloat16ToFloat(w[2 * j + 1]);
    }
  }
}

void WidenRows(const uint16_t* a, int64_t lda, int64_t rows, int64_t n, float* out, int64_t ldo) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < n; ++k) out[r * ldo + k] = BFloat16ToFloat(a[r * lda + k]);
  }
}

}  // namespace

#include "engine/kernels/gemm_bf16_widening.inc"

}  // namespace phasor::kernels::portable

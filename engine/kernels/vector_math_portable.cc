// The vector math kernels on the portable target: none; the callers' scalar
// loops (vector_math.cc, gemm_bf16.cc) do every value, and the compiler
// vectorises what it can.
#include <cstdint>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::portable {

int64_t ExpShifted(const float* /*x*/, float /*shift*/, int64_t /*n*/, float* /*out*/) { return 0; }

int64_t Bf16Round(const float* /*x*/, int64_t /*n*/, uint16_t* /*out*/) { return 0; }

int64_t ExpBf16(const float* /*x*/, float /*shift*/, int64_t /*n*/, uint16_t* /*out*/, float* sum) {
  *sum = 0.0f;
  return 0;
}

int64_t RowMax(const float* /*x*/, int64_t /*n*/, float* /*max*/) { return 0; }

}  // namespace phasor::kernels::portable

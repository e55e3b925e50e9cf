// The vector math kernels on the portable target. ExpShifted is a loop of
// ExpScalar (exp_scalar.inc), which has no branch and no library floor, so
// that the compiler vectorises it (SSE2, NEON). The others are left to the
// callers' scalar loops (vector_math.cc, gemm_bf16.cc).
#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::portable {
namespace {
#include "engine/kernels/exp_scalar.inc"
}  // namespace

int64_t ExpShifted(const float* x, float shift, int64_t n, float* out) {
  for (int64_t j = 0; j < n; ++j) {
    const float e = ExpScalar(x[j] - shift);  // every value, then a select: no branch
    out[j] = x[j] == kNegInf ? 0.0f : e;
  }
  return n;
}

int64_t Bf16Round(const float* /*x*/, int64_t /*n*/, uint16_t* /*out*/) { return 0; }

int64_t ExpBf16(const float* /*x*/, float /*shift*/, int64_t /*n*/, uint16_t* /*out*/, float* sum) {
  *sum = 0.0f;
  return 0;
}

int64_t RowMax(const float* /*x*/, int64_t /*n*/, float* /*max*/) { return 0; }

}  // namespace phasor::kernels::portable

// The vector math kernels on the portable target. ExpShifted is vector_math.cc's
// ExpScalar written so that the compiler vectorises it (SSE2, NEON): no early
// return and no library floor, the same operations in the same order, so the
// same bits. The others are left to the callers' scalar loops
// (vector_math.cc, gemm_bf16.cc).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::portable {
namespace {
#include "engine/kernels/exp_constants.inc"
}  // namespace

int64_t ExpShifted(const float* x, float shift, int64_t n, float* out) {
  for (int64_t j = 0; j < n; ++j) {
    const float d = x[j] - shift;
    const bool nan = d != d;
    // NaN lanes compute on 0 (converting NaN to int is undefined) and keep d.
    float t = nan ? 0.0f : std::min(std::max(d, kExpMin), kExpMax);
    // floor of f by truncation: f lies in (-127, 128), where both agree.
    const float f = t * kLog2e + 0.5f;
    const float truncated = static_cast<float>(static_cast<int32_t>(f));
    const float fx = truncated > f ? truncated - 1.0f : truncated;
    t = t - fx * kLn2Hi;
    t = t - fx * kLn2Lo;
    const float z = t * t;
    float y = kExpP[0];
    for (int i = 1; i < 6; ++i) y = y * t + kExpP[i];
    y = y * z + t + 1.0f;
    const int32_t bits = (static_cast<int32_t>(fx) + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    const float e = nan ? d : y * scale;
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

// The vector math kernels on the portable target, in scalar code (the
// reference the other targets are tested against). ExpShifted is a loop of
// ExpScalar (exp_scalar.inc), which has no branch and no library floor, so
// that the compiler vectorises it (SSE2, NEON).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"
#include "engine/kernels/vector_math.h"

namespace phasor::kernels::portable {
namespace {
#include "engine/bfloat16_bits.inc"
#include "engine/kernels/exp_scalar.inc"
#include "engine/kernels/gelu_scalar.inc"
}  // namespace

void ExpShifted(const float* x, float shift, int64_t n, float* out) {
  for (int64_t j = 0; j < n; ++j) {
    const float e = ExpScalar(x[j] - shift);  // every value, then a select: no branch
    out[j] = x[j] == kNegInf ? 0.0f : e;
  }
}

float ExpSum(const float* x, float shift, int64_t n, float* out) {
  ExpShifted(x, shift, n, out);
  return Sum(out, n);
}

void Bf16Round(const float* x, int64_t n, uint16_t* out) {
  for (int64_t j = 0; j < n; ++j) out[j] = FloatToBFloat16(x[j]);
}

void Bf16PairRows(const float* x, int64_t ldx, int64_t rows, int64_t n, uint16_t* out,
                  int64_t ldo) {
  for (int64_t r = 0; r < rows; r += 2) {
    const float* lo = x + r * ldx;      // [n]
    uint16_t* dst = out + r / 2 * ldo;  // [n, 2]
    for (int64_t c = 0; c < n; ++c) {
      dst[2 * c] = FloatToBFloat16(lo[c]);
      dst[2 * c + 1] = r + 1 < rows ? FloatToBFloat16(lo[ldx + c]) : uint16_t{0};
    }
  }
}

float ExpBf16(const float* x, float shift, int64_t n, uint16_t* out) {
  float sum = 0.0f;
  for (int64_t j = 0; j < n; ++j) {
    out[j] = FloatToBFloat16(x[j] == kNegInf ? 0.0f : ExpScalar(x[j] - shift));
    sum += BFloat16ToFloat(out[j]);
  }
  return sum;
}

float RowMax(const float* x, int64_t n) {
  float max = kNegInf;
  for (int64_t j = 0; j < n; ++j) max = std::max(max, x[j]);
  return max;
}

void GeluErf(const float* x, int64_t n, float* out) {
  for (int64_t j = 0; j < n; ++j) out[j] = GeluScalar(x[j]);
}

}  // namespace phasor::kernels::portable

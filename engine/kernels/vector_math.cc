#include "engine/kernels/vector_math.h"

#include <cstdint>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels {
namespace {

constexpr int kLanes = 16;

// Sums f(v[j]) into kLanes independent lanes (the compiler vectorises the
// inner loop without reassociating anything), then adds the lanes in a fixed
// tree.
template <class F>
float LaneSum(const float* v, int64_t n, F f) {
  float lanes[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int k = 0; k < kLanes; ++k) lanes[k] += f(v[j + k]);
  }
  for (int k = 0; j + k < n; ++k) lanes[k] += f(v[j + k]);
  for (int width = kLanes / 2; width >= 1; width /= 2) {
    for (int k = 0; k < width; ++k) lanes[k] += lanes[k + width];
  }
  return lanes[0];
}

}  // namespace

float Sum(const float* v, int64_t n) {
  return LaneSum(v, n, [](float a) { return a; });
}

float Max(const float* v, int64_t n) { return Kernels().row_max(v, n); }

float SumOfSquares(const float* v, int64_t n) {
  return LaneSum(v, n, [](float a) { return a * a; });
}

void ExpShifted(const float* x, float shift, int64_t n, float* out) {
  Kernels().exp_shifted(x, shift, n, out);
}

float ExpShiftedSum(const float* x, float shift, int64_t n, float* out) {
  return Kernels().exp_sum(x, shift, n, out);
}

float ExpBf16Sum(const float* x, float shift, int64_t n, uint16_t* out) {
  return Kernels().exp_bf16(x, shift, n, out);
}

void GeluErf(const float* x, int64_t n, float* out) { Kernels().gelu_erf(x, n, out); }

}  // namespace phasor::kernels

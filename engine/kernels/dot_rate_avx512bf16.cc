// engine/kernels/dot_rate.h: chains of independent vdpbf16ps and of
// vfmadd231ps, enough of them to hide each instruction's latency, timed alike.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "engine/kernels/dot_rate.h"

namespace phasor::kernels::avx512bf16 {
namespace {

constexpr int kChains = 16;       // latency up to 6 cycles, 2 units
constexpr int64_t kSteps = 2048;  // 32 Ki instructions a run: about 10-30 µs

float Bf16Chains(float seed) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(seed * static_cast<float>(c));
  __m512bh a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.5f), _mm512_set1_ps(seed * 1e-3f));
  for (int64_t s = 0; s < kSteps; ++s) {
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_dpbf16_ps(acc[c], a, a);
    asm volatile("" : "+v"(a));  // a stays in a register; the loop is not folded
  }
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  return lanes[0] + lanes[15];
}

float FmaChains(float seed) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(seed * static_cast<float>(c));
  __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(seed * 1e-7f);
  for (int64_t s = 0; s < kSteps; ++s) {
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
    asm volatile("" : "+v"(a));
  }
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  return lanes[0] + lanes[15];
}

// Seconds one run of chains takes.
double Seconds(float (*chains)(float), volatile float* sink) {
  const auto t0 = std::chrono::steady_clock::now();
  *sink = *sink + chains(1.0f);
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}

}  // namespace

DotRates MeasureDotRates() {
  volatile float sink = 0;
  Seconds(FmaChains, &sink);  // the first run brings the vector unit up to speed
  double bf16 = 1e30, fp32 = 1e30;
  for (int run = 0; run < 3; ++run) {
    bf16 = std::min(bf16, Seconds(Bf16Chains, &sink));
    fp32 = std::min(fp32, Seconds(FmaChains, &sink));
  }
  const double instructions = static_cast<double>(kChains) * static_cast<double>(kSteps);
  return {64.0 * instructions / std::max(bf16, 1e-9), 32.0 * instructions / std::max(fp32, 1e-9)};
}

}  // namespace phasor::kernels::avx512bf16

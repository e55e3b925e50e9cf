// The float32 peak of this machine: independent fused multiply-add chains in
// the widest vectors of the chosen target (PHASOR_ISA), on every thread, so
// that a kernel's GFLOP/s can be read as a fraction of what the cores can do.
// Beside it, the peaks of the instructions the bf16 and int8 products are
// made of (vdpbf16ps, vpdpbusd), where the CPU has them: what those products'
// GFLOP/s (or GOP/s) are read against.
//   build/bin/phasor_bench --benchmark_filter=Peak
#include <benchmark/benchmark.h>
#include <omp.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cstdint>

#include "engine/cpu.h"
#include "engine/parallel.h"

namespace phasor {
namespace {

// Enough independent accumulators to hide the FMA latency (4 cycles, 2 units).
constexpr int kChains = 12;
constexpr int64_t kSteps = 1 << 20;

// 2 · kLanes · kChains · kSteps flops, in vectors of kLanes floats. Inlined
// into the per-target functions below, so it is compiled with their flags.
typedef float Vec4 __attribute__((vector_size(4 * sizeof(float))));
typedef float Vec8 __attribute__((vector_size(8 * sizeof(float))));
typedef float Vec16 __attribute__((vector_size(16 * sizeof(float))));
template <class Vec, int kLanes>
__attribute__((always_inline)) inline float FmaChains(float seed) {
  Vec acc[kChains];
  Vec a, b;
  for (int l = 0; l < kLanes; ++l) {
    a[l] = 0.999999f;
    b[l] = seed * 1e-7f;
  }
  for (int c = 0; c < kChains; ++c) acc[c] = a * static_cast<float>(c + 1);
  for (int64_t s = 0; s < kSteps; ++s) {
    for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * a + b;  // one FMA per chain (fp-contract)
    asm volatile("" : "+v"(a));  // a stays in a register; the loop is not folded
  }
  float sum = 0;
  for (int c = 0; c < kChains; ++c) {
    for (int l = 0; l < kLanes; ++l) sum += acc[c][l];
  }
  return sum;
}

// The widest vectors of the target the kernels run on (engine/cpu.h).
#if defined(__x86_64__)
__attribute__((target("avx512f,avx2,fma"))) float Avx512Chains(float seed) {
  return FmaChains<Vec16, 16>(seed);
}
__attribute__((target("avx2,fma"))) float Avx2Chains(float seed) {
  return FmaChains<Vec8, 8>(seed);
}
#endif
float PortableChains(float seed) { return FmaChains<Vec4, 4>(seed); }

int Lanes() {
  switch (ActiveIsa()) {
    case Isa::kAvx512:
      return 16;
    case Isa::kAvx2:
      return 8;
    default:
      return 4;
  }
}

float Chains(float seed) {
#if defined(__x86_64__)
  if (ActiveIsa() == Isa::kAvx512) return Avx512Chains(seed);
  if (ActiveIsa() == Isa::kAvx2) return Avx2Chains(seed);
#endif
  return PortableChains(seed);
}

// Runs chains(thread + 1) on every thread once an iteration and reports
// ops_per_thread · threads an iteration as a rate in unit. Arg: threads.
void RunChains(benchmark::State& state, float (*chains)(float), double ops_per_thread,
               const char* unit) {
  SetNumThreads(static_cast<int>(state.range(0)));
  const int threads = NumThreads();
  for (auto _ : state) {
    float sink = 0;
#pragma omp parallel num_threads(threads) reduction(+ : sink)
    sink += chains(static_cast<float>(omp_get_thread_num() + 1));
    benchmark::DoNotOptimize(sink);
  }
  state.counters[unit] =
      benchmark::Counter(ops_per_thread * threads * static_cast<double>(state.iterations()) / 1e9,
                         benchmark::Counter::kIsRate);
  SetNumThreads(0);
}

// Arg: threads.
void BM_Fp32Peak(benchmark::State& state) {
  RunChains(state, Chains, 2.0 * Lanes() * kChains * static_cast<double>(kSteps), "GFLOP/s");
}
BENCHMARK(BM_Fp32Peak)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

// The dot-product instructions' latency is longer than the FMA's (up to 6
// cycles): more chains.
constexpr int kDotChains = 16;

#if defined(__x86_64__)
// vdpbf16ps chains: each instruction adds a pair of products to each of 16
// float lanes, 64 flops.
__attribute__((target("avx512f,avx512bf16"))) float Bf16DotChains(float seed) {
  __m512 acc[kDotChains];
  for (int c = 0; c < kDotChains; ++c) acc[c] = _mm512_set1_ps(seed * static_cast<float>(c));
  __m512bh a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.5f), _mm512_set1_ps(seed * 1e-3f));
  for (int64_t s = 0; s < kSteps; ++s) {
    for (int c = 0; c < kDotChains; ++c) acc[c] = _mm512_dpbf16_ps(acc[c], a, a);
    asm volatile("" : "+v"(a));
  }
  __m512 sum = acc[0];
  for (int c = 1; c < kDotChains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  float lanes[16];  // summed in scalar code: GCC 12's _mm512_reduce_* warn
  _mm512_storeu_ps(lanes, sum);
  float total = 0;
  for (const float v : lanes) total += v;
  return total;
}

// vpdpbusd chains: each instruction adds four u8 x s8 products to each of 16
// int32 lanes, 128 operations.
__attribute__((target("avx512f,avx512vnni"))) float Int8DotChains(float seed) {
  __m512i acc[kDotChains];
  for (int c = 0; c < kDotChains; ++c) acc[c] = _mm512_set1_epi32(static_cast<int>(seed) + c);
  __m512i a = _mm512_set1_epi8(static_cast<char>(1 + static_cast<int>(seed)));
  for (int64_t s = 0; s < kSteps; ++s) {
    for (int c = 0; c < kDotChains; ++c) acc[c] = _mm512_dpbusd_epi32(acc[c], a, a);
    asm volatile("" : "+v"(a));
  }
  __m512i sum = acc[0];
  for (int c = 1; c < kDotChains; ++c) sum = _mm512_add_epi32(sum, acc[c]);
  int32_t lanes[16];
  _mm512_storeu_si512(lanes, sum);
  float total = 0;
  for (const int32_t v : lanes) total += static_cast<float>(v);
  return total;
}
#endif

// The peak of one of the dot-product instructions above, each thread running
// kDotChains · kSteps of them. Arg: threads. Skipped where the target is not
// avx512 or the CPU lacks the instruction.
void DotPeak(benchmark::State& state, float (*chains)(float), bool available,
             double ops_per_instruction, const char* unit) {
  if (!available) {
    state.SkipWithError("this CPU or target lacks the instruction");
    return;
  }
  RunChains(state, chains, ops_per_instruction * kDotChains * static_cast<double>(kSteps), unit);
}

#if defined(__x86_64__)
void BM_Bf16Peak(benchmark::State& state) {
  DotPeak(state, Bf16DotChains, ActiveIsa() == Isa::kAvx512 && HasAvx512Bf16(), 64.0, "GFLOP/s");
}
void BM_Int8Peak(benchmark::State& state) {
  DotPeak(state, Int8DotChains, ActiveIsa() == Isa::kAvx512 && __builtin_cpu_supports("avx512vnni"),
          128.0, "GOP/s");
}
BENCHMARK(BM_Bf16Peak)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Int8Peak)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
#endif

}  // namespace
}  // namespace phasor

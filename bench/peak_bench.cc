// The float32 peak of this machine: independent fused multiply-add chains in
// the widest vectors the build targets, on every thread, so that a kernel's
// GFLOP/s can be read as a fraction of what the cores can do at all.
//   build/bin/phasor_bench --benchmark_filter=Fp32Peak
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdint>

#include "engine/parallel.h"

namespace phasor {
namespace {

#if defined(__AVX512F__)
constexpr int kLanes = 16;
#elif defined(__AVX__)
constexpr int kLanes = 8;
#else
constexpr int kLanes = 4;
#endif
typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));

// Enough independent accumulators to hide the FMA latency (4 cycles, 2 units).
constexpr int kChains = 12;
constexpr int64_t kSteps = 1 << 20;

// 2 · kLanes · kChains · kSteps flops.
float FmaChains(float seed) {
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

// Arg: threads.
void BM_Fp32Peak(benchmark::State& state) {
  SetNumThreads(static_cast<int>(state.range(0)));
  const int threads = NumThreads();
  for (auto _ : state) {
    float sink = 0;
#pragma omp parallel num_threads(threads) reduction(+ : sink)
    sink += FmaChains(static_cast<float>(omp_get_thread_num() + 1));
    benchmark::DoNotOptimize(sink);
  }
  const double flops = 2.0 * kLanes * kChains * static_cast<double>(kSteps) * threads;
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * static_cast<double>(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
  SetNumThreads(0);
}
BENCHMARK(BM_Fp32Peak)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace phasor

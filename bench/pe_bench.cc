// PE alone and embedding + PE, per mode, wall-clock under OpenMP.
//   build/bin/phasor_bench --benchmark_filter=Pe
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "engine/parallel.h"
#include "layers/embedding.h"
#include "layers/sinusoidal.h"

namespace phasor {
namespace {

// Args: tokens, d_model, threads.
void BM_PeOnTheFly(benchmark::State& state) {
  const int64_t n = state.range(0), d = state.range(1);
  SetNumThreads(static_cast<int>(state.range(2)));
  SinusoidalOptions o;
  o.d_model = d;
  o.mode = PeMode::kOnTheFly;
  SinusoidalEncoding pe(o);
  AlignedFloats out(n * d);  // [n, d_model]
  for (auto _ : state) {
    pe.Fill(0, n, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * d * 4);
  SetNumThreads(0);
}

void BM_PeCached(benchmark::State& state) {
  const int64_t n = state.range(0), d = state.range(1);
  SetNumThreads(static_cast<int>(state.range(2)));
  SinusoidalOptions o;
  o.d_model = d;
  o.mode = PeMode::kCached;
  o.max_len = n;
  SinusoidalEncoding pe(o);
  AlignedFloats out(n * d);  // [n, d_model]
  for (auto _ : state) {
    pe.Fill(0, n, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * d * 4);
  SetNumThreads(0);
}

void BM_EmbeddingPe(benchmark::State& state) {
  const int64_t n = state.range(0), d = state.range(1), vocab = 32000;
  SetNumThreads(static_cast<int>(state.range(2)));
  const PeMode mode = static_cast<PeMode>(state.range(3));
  std::vector<float> table(vocab * d, 0.01f);
  Weights w("bench");
  w.Add("embedding.weight", {vocab, d}, std::move(table));
  SinusoidalOptions o;
  o.d_model = d;
  o.mode = mode;
  o.max_len = mode == PeMode::kOnTheFly ? 0 : n;
  SinusoidalEncoding pe(o);
  Embedding emb(w, {vocab, d, false, 0}, &pe);
  std::vector<int32_t> ids(n);
  std::mt19937 rng(1);
  for (auto& id : ids) id = static_cast<int32_t>(rng() % vocab);
  AlignedFloats out(n * d);  // [n, d_model]
  for (auto _ : state) {
    emb.Forward(ids.data(), 1, n, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * d * 4);
  state.SetLabel(ToString(mode));
  SetNumThreads(0);
}

void PeArgs(benchmark::internal::Benchmark* b) {
  for (int64_t d : {64, 512, 4096}) {
    for (int64_t threads : {1, 2}) b->Args({(int64_t{1} << 22) / d * 64, d, threads});
  }
}

BENCHMARK(BM_PeOnTheFly)->Apply(PeArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PeCached)->Apply(PeArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EmbeddingPe)
    ->Args({1 << 20, 512, 2, static_cast<int64_t>(PeMode::kOnTheFly)})
    ->Args({1 << 20, 512, 2, static_cast<int64_t>(PeMode::kCached)})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace phasor

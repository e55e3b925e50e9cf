// PE alone and embedding + PE, per mode, with the bounds they are measured
// against (a plain streaming write; the bare embedding gather), wall-clock.
//   build/bin/phasor_bench --benchmark_filter='Pe|StreamWrite'
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <vector>

#include "engine/kernels/rotate_rows.h"
#include "engine/parallel.h"
#include "layers/embedding.h"
#include "layers/sinusoidal.h"

namespace phasor {
namespace {

// PE alone in one mode. Args: tokens, d_model, threads.
void RunPe(benchmark::State& state, PeMode mode) {
  const int64_t n = state.range(0), d = state.range(1);
  SetNumThreads(static_cast<int>(state.range(2)));
  SinusoidalOptions o;
  o.d_model = d;
  o.mode = mode;
  o.max_len = mode == PeMode::kOnTheFly ? 0 : n;
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

void BM_PeOnTheFly(benchmark::State& state) { RunPe(state, PeMode::kOnTheFly); }
void BM_PeCached(benchmark::State& state) { RunPe(state, PeMode::kCached); }

// Args: tokens, d_model, threads, mode (a PeMode, or -1: no PE, the bare gather).
void BM_EmbeddingPe(benchmark::State& state) {
  const int64_t n = state.range(0), d = state.range(1), vocab = 32000;
  SetNumThreads(static_cast<int>(state.range(2)));
  const bool none = state.range(3) < 0;
  const PeMode mode = none ? PeMode::kOnTheFly : static_cast<PeMode>(state.range(3));
  AlignedFloats table(vocab * d);
  std::mt19937 rng(1);
  for (auto& v : table) v = static_cast<float>(rng() % 2001) * 1e-4f - 0.1f;
  Weights w("bench");
  w.AddAligned("embedding.weight", {vocab, d}, std::move(table));
  SinusoidalOptions o;
  o.d_model = d;
  o.mode = mode;
  o.max_len = mode == PeMode::kOnTheFly ? 0 : n;
  SinusoidalEncoding pe(o);
  Embedding emb(w, {vocab, d, false, 0}, none ? nullptr : &pe);
  std::vector<int32_t> ids(n);
  for (auto& id : ids) id = static_cast<int32_t>(rng() % vocab);
  AlignedFloats out(n * d);  // [n, d_model]
  for (auto _ : state) {
    emb.Forward(ids.data(), 1, n, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * d * 4);
  state.SetLabel(none ? "gather" : ToString(mode));
  SetNumThreads(0);
}

// The bound of PE alone: a plain streaming write of the same bytes, rows split
// among threads as the PE splits them. Args: tokens, d_model, threads.
void BM_StreamWrite(benchmark::State& state) {
  const int64_t n = state.range(0), d = state.range(1);
  SetNumThreads(static_cast<int>(state.range(2)));
  AlignedFloats out(n * d);  // [n, d_model]
  const int64_t rows = RotationRows::TaskRows(d);
  const kernels::Stores stores = kernels::StoresFor(n * d * 4);
  for (auto _ : state) {
    ParallelTasks((n + rows - 1) / rows, 0, [&](int64_t t, int /*slot*/) {
      const int64_t j1 = std::min(n, (t + 1) * rows);
      kernels::FillRow(1.0f, (j1 - t * rows) * d, out.data() + t * rows * d, stores);
      kernels::StreamFence();
    });
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * d * 4);
  SetNumThreads(0);
}

// The baseline: sin and cos per value, on one thread (slow: fewer tokens).
void BM_PeDirect(benchmark::State& state) {
  const int64_t n = state.range(0), d = state.range(1);
  SinusoidalOptions o;
  o.d_model = d;
  o.mode = PeMode::kOnTheFly;
  SinusoidalEncoding pe(o);
  AlignedFloats out(n * d);  // [n, d_model]
  for (auto _ : state) {
    pe.FillDirect(0, n, nullptr, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * d * 4);
}

// 1 GiB of output at every width: far past the caches.
void PeArgs(benchmark::internal::Benchmark* b) {
  for (int64_t d : {64, 512, 4096}) {
    for (int64_t threads : {1, 2}) b->Args({(int64_t{1} << 22) / d * 64, d, threads});
  }
}

// 2 GiB of output at d_model 512 (1M tokens), as the bench-pe targets; 256 MiB
// at the other widths.
void EmbeddingArgs(benchmark::internal::Benchmark* b) {
  for (int64_t mode : {int64_t{-1}, static_cast<int64_t>(PeMode::kOnTheFly),
                       static_cast<int64_t>(PeMode::kCached)}) {
    for (int64_t d : {64, 512, 4096}) {
      const int64_t tokens = d == 512 ? int64_t{1} << 20 : (int64_t{1} << 26) / d;
      for (int64_t threads : {1, 2}) b->Args({tokens, d, threads, mode});
    }
  }
}

BENCHMARK(BM_StreamWrite)->Apply(PeArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PeOnTheFly)->Apply(PeArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PeCached)->Apply(PeArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PeDirect)
    ->Args({4096, 64})
    ->Args({1024, 512})
    ->Args({128, 4096})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EmbeddingPe)->Apply(EmbeddingArgs)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace phasor

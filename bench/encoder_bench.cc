// The encoder's cost, layer by layer and kernel by kernel, wall-clock under
// OpenMP, at the shape of the published encoder figures (d_model 512, 8 heads,
// d_ff 2048, 512 tokens):
//   build/bin/phasor_bench --benchmark_filter='Linear|Attention|FeedForward|EncoderLayer|Encoder'
// items/s are tokens/s; GFLOP/s (GOP/s for the int8 product) is the arithmetic of the products.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/kernels/attention.h"
#include "engine/kernels/attention_bf16.h"
#include "engine/kernels/gemm.h"
#include "engine/kernels/gemm_bf16.h"
#include "engine/kernels/gemm_int8.h"
#include "engine/kernels/layer_norm.h"
#include "engine/parallel.h"
#include "layers/attention.h"
#include "layers/encoder_layer.h"
#include "layers/feed_forward.h"
#include "models/encoder.h"
#include "models/toy.h"

namespace phasor {
namespace {

std::vector<float> Random(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-0.1f, 0.1f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

ModelConfig Config(int64_t d_model, int64_t n_heads, int64_t d_ff, int64_t n_layers) {
  ModelConfig c = ToyConfig();
  c.vocab_size = 1000;
  c.d_model = d_model;
  c.n_heads = n_heads;
  c.d_ff = d_ff;
  c.n_layers = n_layers;
  return c;
}

void SetGflops(benchmark::State& state, double flops_per_iteration) {
  state.counters["GFLOP/s"] = benchmark::Counter(flops_per_iteration * 1e-9 * state.iterations(),
                                                 benchmark::Counter::kIsRate);
}

// Args: rows, in, out, threads. Weights packed at load, as the layers do.
void BM_PackedLinear(benchmark::State& state) {
  const int64_t rows = state.range(0), in = state.range(1), out = state.range(2);
  SetNumThreads(static_cast<int>(state.range(3)));
  const std::vector<float> x = Random(rows * in, 1), w = Random(out * in, 2), b = Random(out, 3);
  const kernels::PackedWeights packed(w.data(), b.data(), out, in);
  std::vector<float> y(static_cast<size_t>(rows * out));  // [rows, out]
  for (auto _ : state) {
    kernels::PackedLinear(x.data(), rows, packed, y.data(), kernels::Activation::kRelu);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(state.iterations() * rows);
  SetGflops(state, 2.0 * rows * in * out);
  SetNumThreads(0);
}

// Args: rows, in, out, threads. BM_PackedLinear with its weights cold, as an
// encoder meets them: each call uses the next of kColdCopies weight matrices
// (over 100 MB together for BERT-base's shapes, more than the caches hold), so
// every call brings its weights in from memory as a layer does after the
// other layers' weights went through the caches.
void BM_PackedLinearColdWeights(benchmark::State& state) {
  constexpr int kColdCopies = 16;
  const int64_t rows = state.range(0), in = state.range(1), out = state.range(2);
  SetNumThreads(static_cast<int>(state.range(3)));
  // x: [rows, in]; w: [out, in]; b: [out]
  const std::vector<float> x = Random(rows * in, 1), w = Random(out * in, 2), b = Random(out, 3);
  std::vector<kernels::PackedWeights> copies;  // kColdCopies packings of w and b
  copies.reserve(kColdCopies);
  for (int i = 0; i < kColdCopies; ++i) copies.emplace_back(w.data(), b.data(), out, in);
  std::vector<float> y(static_cast<size_t>(rows * out));  // [rows, out]
  int next = 0;
  for (auto _ : state) {
    kernels::PackedLinear(x.data(), rows, copies[next], y.data(), kernels::Activation::kRelu);
    next = (next + 1) % kColdCopies;
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(state.iterations() * rows);
  state.SetBytesProcessed(state.iterations() * copies[0].bytes());  // weights brought in
  SetGflops(state, 2.0 * rows * in * out);
  SetNumThreads(0);
}

// Args: rows, in, out, threads. The int8 product as a layer calls it: the rows
// quantized (serially), then its blocks (kPackedLinearRows x kPackedLinearCols,
// on amx kOnednnRows x every column) over ParallelTasks; weights quantized at
// load. GOP/s counts the products'
// multiply-adds as two operations, as GFLOP/s does.
void BM_Int8Linear(benchmark::State& state) {
  const int64_t rows = state.range(0), in = state.range(1), out = state.range(2);
  SetNumThreads(static_cast<int>(state.range(3)));
  const std::vector<float> x = Random(rows * in, 1), w = Random(out * in, 2), b = Random(out, 3);
  const kernels::Int8Weights packed(w.data(), b.data(), out, in);
  const int64_t ldq = packed.row_bytes();
  std::vector<uint8_t> q(static_cast<size_t>(rows * ldq));  // [rows, ldq]
  std::vector<float> scales(static_cast<size_t>(rows));     // [rows]
  std::vector<float> y(static_cast<size_t>(rows * out));    // [rows, out]
  const int64_t tile_rows = packed.block_rows(), tile_cols = packed.block_cols();
  const int64_t row_tiles = (rows + tile_rows - 1) / tile_rows;
  const int64_t col_tiles = (out + tile_cols - 1) / tile_cols;
  for (auto _ : state) {
    kernels::QuantizeRowsInt8(x.data(), in, rows, packed, {q.data(), ldq, scales.data()});
    ParallelTasks(row_tiles * col_tiles, 0, [&](int64_t t, int /*slot*/) {
      const int64_t r0 = t / col_tiles * tile_rows;
      const int64_t c0 = t % col_tiles * tile_cols;
      kernels::Int8LinearBlock(q.data() + r0 * ldq, ldq, scales.data() + r0,
                               std::min(tile_rows, rows - r0), packed,
                               {c0, std::min(out, c0 + tile_cols), y.data() + r0 * out, out,
                                kernels::Activation::kRelu});
    });
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(state.iterations() * rows);
  state.counters["GOP/s"] = benchmark::Counter(2.0 * rows * in * out * 1e-9 * state.iterations(),
                                               benchmark::Counter::kIsRate);
  SetNumThreads(0);
}

// Args: rows, in, out, threads. BM_PackedLinear's layer in bfloat16 as a layer
// calls it: weights rounded and packed at load; per call the rows of x rounded
// (tasks of kPackedLinearRows rows), then the product in the weights' blocks.
void BM_Bf16Linear(benchmark::State& state) {
  const int64_t rows = state.range(0), in = state.range(1), out = state.range(2);
  SetNumThreads(static_cast<int>(state.range(3)));
  const std::vector<float> x = Random(rows * in, 1), w = Random(out * in, 2), b = Random(out, 3);
  const kernels::Bf16Weights packed(w.data(), b.data(), out, in);
  const int64_t ldxb = packed.row_values();
  std::vector<uint16_t> xb(static_cast<size_t>(rows * ldxb));  // [rows, row_values]
  std::vector<float> y(static_cast<size_t>(rows * out));       // [rows, out]
  const int64_t tile_rows = packed.block_rows(), tile_cols = packed.block_cols();
  const int64_t row_tiles = (rows + tile_rows - 1) / tile_rows;
  const int64_t col_tiles = (out + tile_cols - 1) / tile_cols;
  for (auto _ : state) {
    ParallelTasks(row_tiles, 0, [&](int64_t t, int /*slot*/) {
      const int64_t r0 = t * tile_rows;
      kernels::RoundRowsBf16(x.data() + r0 * in, in, std::min(tile_rows, rows - r0), packed,
                             xb.data() + r0 * ldxb, ldxb);
    });
    ParallelTasks(row_tiles * col_tiles, 0, [&](int64_t t, int /*slot*/) {
      const int64_t r0 = t / col_tiles * tile_rows, c0 = t % col_tiles * tile_cols;
      kernels::Bf16LinearBlock(xb.data() + r0 * ldxb, ldxb, std::min(tile_rows, rows - r0), packed,
                               {c0, std::min(out, c0 + tile_cols), y.data() + r0 * out, out,
                                kernels::Activation::kRelu});
    });
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(state.iterations() * rows);
  SetGflops(state, 2.0 * rows * in * out);
  SetNumThreads(0);
}

// Args: seq, d_model, n_heads, threads. One sequence, q|k|v projection to
// output projection (no epilogue).
void BM_Attention(benchmark::State& state) {
  const int64_t seq = state.range(0), d = state.range(1), heads = state.range(2);
  SetNumThreads(static_cast<int>(state.range(3)));
  const ModelConfig c = Config(d, heads, 4 * d, 1);
  const Weights w = ToyWeights(c);
  const MultiHeadSelfAttention attn(w, "layers.0.self_attn.", {d, heads});
  AttentionWorkspace ws(seq, {d, heads});
  const std::vector<float> x = Random(seq * d, 4);
  std::vector<float> out(x.size());  // [seq, d_model]
  for (auto _ : state) {
    attn.Forward(x.data(), {1, seq, nullptr}, out.data(), ws);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * seq);
  SetGflops(state, 2.0 * seq * d * 4 * d + 4.0 * seq * seq * d);
  SetNumThreads(0);
}

// Args: n_q, n_keys, d_head (one thread): the attention kernel alone.
void BM_AttentionTile(benchmark::State& state) {
  const int64_t n_q = state.range(0), n_keys = state.range(1), d_head = state.range(2);
  const std::vector<float> q = Random(n_q * d_head, 5), k = Random(n_keys * d_head, 6),
                           v = Random(n_keys * d_head, 7);
  std::vector<float> out(static_cast<size_t>(n_q * d_head));
  std::vector<float> scratch(static_cast<size_t>(kernels::AttentionScratchFloats(n_q, d_head)));
  kernels::AttentionArgs a;
  a.q = q.data();
  a.k = k.data();
  a.v = v.data();
  a.out = out.data();
  a.ldq = a.ldk = a.ldv = a.ldo = d_head;
  a.n_q = n_q;
  a.n_keys = n_keys;
  a.d_head = d_head;
  a.scale = 0.125f;
  for (auto _ : state) {
    kernels::AttentionTile(a, scratch.data());
    benchmark::DoNotOptimize(out.data());
  }
  SetGflops(state, 4.0 * n_q * n_keys * d_head);
}

// The same at bf16: keys and values packed once (as the layer does per
// head), outside the timed loop.
void BM_AttentionTileBf16(benchmark::State& state) {
  const int64_t n_q = state.range(0), n_keys = state.range(1), d_head = state.range(2);
  const std::vector<float> q = Random(n_q * d_head, 5), k = Random(n_keys * d_head, 6),
                           v = Random(n_keys * d_head, 7);
  std::vector<uint16_t> kb(kernels::KeysBf16Values(n_keys, d_head));
  std::vector<uint16_t> vb(kernels::ValuesBf16Values(n_keys, d_head));
  kernels::PackKeysBf16(k.data(), d_head, n_keys, d_head, kb.data());
  kernels::PackValuesBf16(v.data(), d_head, n_keys, d_head, vb.data());
  std::vector<float> out(static_cast<size_t>(n_q * d_head));
  std::vector<float> scratch(static_cast<size_t>(kernels::AttentionBf16ScratchFloats(n_q, d_head)));
  kernels::AttentionBf16Args a;
  a.q = q.data();
  a.k = kb.data();
  a.v = vb.data();
  a.out = out.data();
  a.ldq = a.ldo = d_head;
  a.n_q = n_q;
  a.n_keys = n_keys;
  a.d_head = d_head;
  a.scale = 0.125f;
  for (auto _ : state) {
    kernels::AttentionTileBf16(a, scratch.data());
    benchmark::DoNotOptimize(out.data());
  }
  SetGflops(state, 4.0 * n_q * n_keys * d_head);
}

// Args: rows, d_model. out = LayerNorm(x + residual) on one thread, rows in
// L2 as the epilogue of a product meets them; items/s are rows/s, bytes/s
// the two rows read and one written.
void BM_AddLayerNorm(benchmark::State& state) {
  const int64_t rows = state.range(0), d = state.range(1);
  const std::vector<float> x = Random(rows * d, 11), res = Random(rows * d, 12);
  const std::vector<float> gamma = Random(d, 13), beta = Random(d, 14);
  std::vector<float> out(static_cast<size_t>(rows * d));
  for (auto _ : state) {
    kernels::AddLayerNorm(x.data(), res.data(), rows, d, {gamma.data(), beta.data(), 1e-5f},
                          out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * rows);
  state.SetBytesProcessed(state.iterations() * rows * d * 12);
}

// Args: tokens, d_model, d_ff, threads. With the fused residual + LayerNorm.
void BM_FeedForward(benchmark::State& state) {
  const int64_t tokens = state.range(0), d = state.range(1), d_ff = state.range(2);
  SetNumThreads(static_cast<int>(state.range(3)));
  const ModelConfig c = Config(d, 8, d_ff, 1);
  const Weights w = ToyWeights(c);
  const FeedForward ff(w, "layers.0.", {d, d_ff, kernels::Activation::kRelu});
  const LayerNorm norm(w, "layers.0.norm2.", {d, 1e-5f});
  FeedForwardWorkspace ws(tokens, {d, d_ff, kernels::Activation::kRelu});
  std::vector<float> x = Random(tokens * d, 8);  // [tokens, d_model], in place
  const ResidualNorm epilogue{x.data(), &norm};
  constexpr int64_t kRows = FeedForward::kBlockRows;
  ff.CheckCall(tokens, ws, epilogue);
  for (auto _ : state) {  // the blocks as EncoderLayer runs them
    ParallelTasks((tokens + kRows - 1) / kRows, NumThreads(), [&](int64_t t, int slot) {
      ff.ForwardBlock(x.data(), x.data(), {t * kRows, std::min(kRows, tokens - t * kRows), slot},
                      ws, epilogue);
    });
    benchmark::DoNotOptimize(x.data());
  }
  state.SetItemsProcessed(state.iterations() * tokens);
  SetGflops(state, 4.0 * tokens * d * d_ff);
  SetNumThreads(0);
}

// Args: batch, seq, d_model, n_heads, d_ff, threads. One post-LN layer.
void BM_EncoderLayer(benchmark::State& state) {
  const int64_t batch = state.range(0), seq = state.range(1), d = state.range(2),
                heads = state.range(3), d_ff = state.range(4);
  SetNumThreads(static_cast<int>(state.range(5)));
  const ModelConfig c = Config(d, heads, d_ff, 1);
  const Weights w = ToyWeights(c);
  EncoderLayerOptions o;
  o.d_model = d;
  o.n_heads = heads;
  o.d_ff = d_ff;
  const EncoderLayer layer(w, "layers.0.", o);
  EncoderLayerWorkspace ws(batch * seq, o);
  std::vector<float> x = Random(batch * seq * d, 9);  // [batch·seq, d_model], in place
  for (auto _ : state) {
    layer.Forward(x.data(), batch, seq, nullptr, x.data(), ws);
    benchmark::DoNotOptimize(x.data());
  }
  const double tokens = static_cast<double>(batch * seq);
  state.SetItemsProcessed(state.iterations() * batch * seq);
  SetGflops(state, tokens * (8.0 * d * d + 4.0 * d * d_ff + 4.0 * seq * d));
  SetNumThreads(0);
}

// Args: batch, seq, d_model, n_heads, d_ff, n_layers, threads. The whole
// encoder (embedding + PE + layers), as `phasor encode` times it.
void BM_Encoder(benchmark::State& state) {
  const int64_t batch = state.range(0), seq = state.range(1);
  const ModelConfig c = Config(state.range(2), state.range(3), state.range(4), state.range(5));
  SetNumThreads(static_cast<int>(state.range(6)));
  const Encoder enc(c, ToyWeights(c));
  EncoderWorkspace ws = enc.MakeWorkspace(batch * seq);
  std::vector<int32_t> ids(static_cast<size_t>(batch * seq));
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(1 + i * 7919 % 999);
  std::vector<float> out(static_cast<size_t>(batch * seq * c.d_model));
  for (auto _ : state) {
    enc.Forward({ids.data(), batch, seq, nullptr}, EncoderStage::kFinal, out.data(), ws);
    benchmark::DoNotOptimize(out.data());
  }
  const double d = static_cast<double>(c.d_model), tokens = static_cast<double>(batch * seq);
  state.SetItemsProcessed(state.iterations() * batch * seq);
  SetGflops(state, c.n_layers * tokens * (8.0 * d * d + 4.0 * d * c.d_ff + 4.0 * seq * d));
  SetNumThreads(0);
}

BENCHMARK(BM_PackedLinear)
    ->ArgsProduct({{512}, {512}, {2048}, {1, 2}})
    ->Args({512, 2048, 512, 2})
    ->ArgsProduct({{384}, {768}, {2304, 3072}, {1}})  // BERT-base's q, k, v and first FF
    ->Args({384, 3072, 768, 1})
    ->Args({512, 768, 3072, 1})  // BM_OnednnMatmul's shape
    ->UseRealTime();
BENCHMARK(BM_PackedLinearColdWeights)
    ->ArgsProduct({{384}, {768}, {2304, 3072}, {1}})
    ->Args({384, 3072, 768, 1})
    ->Args({512, 512, 2048, 2})
    ->UseRealTime();
BENCHMARK(BM_Int8Linear)
    ->ArgsProduct({{512}, {512}, {2048}, {1, 2}})
    ->Args({512, 2048, 512, 2})
    ->Args({512, 768, 3072, 1})  // BM_OnednnMatmul's shape
    ->UseRealTime();
BENCHMARK(BM_Bf16Linear)
    ->ArgsProduct({{512}, {512}, {2048}, {1, 2}})
    ->Args({512, 2048, 512, 2})
    ->Args({512, 768, 3072, 1})  // BM_OnednnMatmul's shape
    ->UseRealTime();
BENCHMARK(BM_AttentionTile)->Args({128, 512, 64})->Args({64, 4096, 64})->UseRealTime();
BENCHMARK(BM_AttentionTileBf16)->Args({128, 512, 64})->Args({64, 4096, 64})->UseRealTime();
BENCHMARK(BM_Attention)->ArgsProduct({{512, 4096}, {512}, {8}, {1, 2}})->UseRealTime();
BENCHMARK(BM_AddLayerNorm)->Args({64, 512})->Args({64, 768});
BENCHMARK(BM_FeedForward)
    ->ArgsProduct({{512}, {512}, {2048}, {1, 2}})
    ->Args({384, 768, 3072, 1})
    ->UseRealTime();
BENCHMARK(BM_EncoderLayer)
    ->ArgsProduct({{1}, {512}, {512}, {8}, {2048}, {1, 2}})
    ->Args({8, 128, 256, 4, 1024, 2})
    ->UseRealTime();
BENCHMARK(BM_Encoder)
    ->Args({1, 512, 512, 8, 2048, 6, 2})
    ->Args({8, 128, 256, 4, 1024, 4, 2})
    ->UseRealTime();

}  // namespace
}  // namespace phasor

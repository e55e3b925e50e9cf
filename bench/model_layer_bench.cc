// One encoder layer at the shapes of published models, on random weights,
// wall-clock over 2 threads; items/s are tokens/s:
//   BM_RotaryLayer/<rope 0|1>  a ModernBERT-base layer (d_model 768, 12 heads,
//                              GeGLU d_ff 1152, pre-LN, LayerNorm and products
//                              without biases) on 512 tokens, without and with
//                              RoPE (base 160000, half, d_head 64): what the
//                              rotation costs
//   BM_WindowLayer/<window>    the same layer with RoPE on 8,192 tokens, every
//                              key seen (-1) or 64 either side (ModernBERT's
//                              local_attention 128)
//   BM_WindowAttention/<window> that layer's attention alone (q|k|v product,
//                              rotation, scores, output product) on the same
//                              8,192 tokens: the part a window changes
//   BM_Qwen3Layer              a Qwen3-Embedding-0.6B layer (d_model 1024, 16
//                              heads, 8 kv heads, d_head 128, SwiGLU d_ff 3072,
//                              RMSNorm, q/k norms, causal, RoPE base 1e6) on
//                              16 sequences of 50 .. 500 tokens packed back to
//                              back; GFLOP/s counts its four products alone,
//                              to be read against BM_Fp32Peak/2
//   BM_Qwen3Products           that layer's four products alone (q|k|v, output,
//                              gate|up, down; Linear::Forward as the layer
//                              runs them) on the same rows: their own rate
//   build/bin/phasor_bench --benchmark_filter='BM_(RotaryLayer|Window|Qwen3|Fp32Peak/2)'
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/parallel.h"
#include "layers/attention.h"
#include "layers/encoder_layer.h"
#include "layers/linear.h"
#include "layers/rope.h"
#include "layers/spans.h"

namespace phasor {
namespace {

constexpr int kThreads = 2;

std::vector<float> Uniform(int64_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

// Adds prefix + name [rows, cols] uniform in ±1/sqrt(cols) (PyTorch's
// nn.Linear initialisation: activations keep their scale through the layer).
void AddLinear(Weights& w, const std::string& name, int64_t rows, int64_t cols, uint32_t seed) {
  const float a = 1.0f / std::sqrt(static_cast<float>(cols));
  w.Add(name, {rows, cols}, Uniform(rows * cols, -a, a, seed));
}

// A norm's weight [width] near 1, and its bias if it has one.
void AddNorm(Weights& w, const std::string& prefix, int64_t width, bool bias, uint32_t seed) {
  w.Add(prefix + "weight", {width}, Uniform(width, 0.9f, 1.1f, seed));
  if (bias) w.Add(prefix + "bias", {width}, Uniform(width, -0.1f, 0.1f, seed + 1));
}

// The sizes of the layer's attention (its widths; no rotation).
AttentionOptions WidthsOf(const EncoderLayerOptions& o) {
  AttentionOptions a;
  a.d_model = o.d_model;
  a.n_heads = o.n_heads;
  a.n_kv_heads = o.attention.n_kv_heads;
  a.d_head = o.attention.d_head;
  return a;
}

// Flops of the layer's four products on `tokens` rows: 2·tokens·(d_model·qkv_width
// + heads_width·d_model + d_model·hidden + d_ff·d_model), hidden = 2·d_ff gated.
double ProductFlops(const EncoderLayerOptions& o, int64_t tokens) {
  const AttentionOptions a = WidthsOf(o);
  const double d = static_cast<double>(o.d_model), d_ff = static_cast<double>(o.d_ff);
  const double hidden = o.gated_ff ? 2 * d_ff : d_ff;
  return 2.0 * static_cast<double>(tokens) *
         (d * static_cast<double>(a.qkv_width()) + static_cast<double>(a.heads_width()) * d +
          d * hidden + d_ff * d);
}

// Every tensor EncoderLayer(w, "", o) reads (norm1, norm2, no sandwich).
Weights LayerWeights(const EncoderLayerOptions& o) {
  const AttentionOptions a = WidthsOf(o);
  const int64_t d = o.d_model, hidden = o.gated_ff ? 2 * o.d_ff : o.d_ff;
  Weights w("random weights");
  AddLinear(w, "self_attn.in_proj_weight", a.qkv_width(), d, 1);     // [qkv_width, d_model]
  AddLinear(w, "self_attn.out_proj.weight", d, a.heads_width(), 2);  // [d_model, heads_width]
  AddLinear(w, "linear1.weight", hidden, d, 3);                      // [hidden, d_model]
  AddLinear(w, "linear2.weight", d, o.d_ff, 4);                      // [d_model, d_ff]
  if (o.bias.in_proj) {
    w.Add("self_attn.in_proj_bias", {a.qkv_width()}, Uniform(a.qkv_width(), -0.1f, 0.1f, 5));
  }
  if (o.bias.out_proj) w.Add("self_attn.out_proj.bias", {d}, Uniform(d, -0.1f, 0.1f, 6));
  if (o.bias.linear1) w.Add("linear1.bias", {hidden}, Uniform(hidden, -0.1f, 0.1f, 7));
  if (o.bias.linear2) w.Add("linear2.bias", {d}, Uniform(d, -0.1f, 0.1f, 8));
  const bool norm_bias = o.norm.kind == NormKind::kLayerNorm && o.norm.bias;
  AddNorm(w, "norm1.", d, norm_bias, 9);
  AddNorm(w, "norm2.", d, norm_bias, 11);
  if (o.attention.qk_norm.on) {
    AddNorm(w, "self_attn.q_norm.", a.head_width(), false, 13);
    AddNorm(w, "self_attn.k_norm.", a.head_width(), false, 14);
  }
  return w;
}

// ModernBERT-base's layer (HF ModernBertEncoderLayer): pre-LN, LayerNorm
// without bias, Wqkv and Wo without bias, GeGLU (Wi [2·1152, 768]) without bias.
EncoderLayerOptions ModernBertBase(const QkRotation* rotation, KeyWindow window) {
  EncoderLayerOptions o;
  o.d_model = 768;
  o.n_heads = 12;
  o.d_ff = 1152;
  o.activation = kernels::Activation::kGelu;
  o.norm_first = true;
  o.rotation = rotation;
  o.gated_ff = true;
  o.bias = {false, false, false, false};
  o.norm.bias = false;
  o.attention.window = window;
  return o;
}

RopeOptions ModernBertRope(int64_t max_len) {
  RopeOptions r;
  r.d_head = 64;
  r.base = 160000.0;
  r.layout = RopeLayout::kHalf;
  r.max_len = max_len;
  return r;
}

// Qwen3-Embedding-0.6B's layer (HF Qwen3DecoderLayer): pre-RMSNorm (eps 1e-6),
// GQA 16/8 heads of 128, RMSNorm on each head's q and k, causal, no biases,
// SwiGLU (gate_proj | up_proj as linear1 [2·3072, 1024]).
EncoderLayerOptions Qwen3Embedding06B(const QkRotation* rotation) {
  EncoderLayerOptions o;
  o.d_model = 1024;
  o.n_heads = 16;
  o.d_ff = 3072;
  o.activation = kernels::Activation::kSilu;
  o.norm_first = true;
  o.layer_norm_eps = 1e-6f;
  o.rotation = rotation;
  o.gated_ff = true;
  o.bias = {false, false, false, false};
  o.norm.kind = NormKind::kRms;
  o.attention.n_kv_heads = 8;
  o.attention.d_head = 128;
  o.attention.window = KeyWindow::Causal();
  o.attention.qk_norm = {true, NormKind::kRms, 1e-6f, 0.0f};
  return o;
}

// Marks the run failed unless every output is finite: a layer whose random
// weights overflow would time other arithmetic (NaN, infinities) than a model's.
void CheckFinite(benchmark::State& state, const std::vector<float>& out) {
  for (const float v : out) {
    if (!std::isfinite(v)) {
      state.SkipWithError("the layer's output is not finite");
      return;
    }
  }
}

// Runs the layer on one sequence of seq tokens (x to a separate out, so every
// iteration sees the same input).
void RunOneSequence(benchmark::State& state, const EncoderLayerOptions& o, int64_t seq) {
  const Weights w = LayerWeights(o);
  const EncoderLayer layer(w, "", o);
  EncoderLayerWorkspace ws(seq, o);
  const std::vector<float> x = Uniform(seq * o.d_model, -1.0f, 1.0f, 20);  // [seq, d_model]
  std::vector<float> out(x.size());                                        // [seq, d_model]
  for (auto _ : state) {
    layer.Forward(x.data(), 1, seq, nullptr, out.data(), ws);
    benchmark::DoNotOptimize(out.data());
  }
  CheckFinite(state, out);
  state.SetItemsProcessed(state.iterations() * seq);
}

// Arg: 1 with RoPE, 0 without.
void BM_RotaryLayer(benchmark::State& state) {
  SetNumThreads(kThreads);
  constexpr int64_t kSeq = 512;
  const Rope rope(ModernBertRope(kSeq));
  RunOneSequence(state, ModernBertBase(state.range(0) != 0 ? &rope : nullptr, KeyWindow::Full()),
                 kSeq);
  SetNumThreads(0);
}

// Arg: keys seen either side of a query (-1: all). RoPE in both, so that the
// window is the only difference.
void BM_WindowLayer(benchmark::State& state) {
  SetNumThreads(kThreads);
  constexpr int64_t kSeq = 8192;
  const Rope rope(ModernBertRope(kSeq));
  const KeyWindow window{state.range(0), state.range(0)};
  RunOneSequence(state, ModernBertBase(&rope, window), kSeq);
  SetNumThreads(0);
}

// Arg: keys seen either side of a query (-1: all); the attention sublayer of
// BM_WindowLayer's layer alone.
void BM_WindowAttention(benchmark::State& state) {
  SetNumThreads(kThreads);
  constexpr int64_t kSeq = 8192;
  const Rope rope(ModernBertRope(kSeq));
  const EncoderLayerOptions layer =
      ModernBertBase(&rope, KeyWindow{state.range(0), state.range(0)});
  AttentionOptions o = WidthsOf(layer);
  o.rotation = layer.rotation;
  o.in_bias = o.out_bias = false;
  o.window = layer.attention.window;
  const int64_t d = o.d_model;
  Weights w("random weights");
  AddLinear(w, "in_proj_weight", o.qkv_width(), d, 1);     // [qkv_width, d_model]
  AddLinear(w, "out_proj.weight", d, o.heads_width(), 2);  // [d_model, heads_width]
  const MultiHeadSelfAttention attention(w, "", o);
  AttentionWorkspace ws(kSeq, o);
  const std::vector<float> x = Uniform(kSeq * d, -1.0f, 1.0f, 20);  // [seq, d_model]
  std::vector<float> out(x.size());                                 // [seq, d_model]
  for (auto _ : state) {
    attention.Forward(x.data(), Padded{1, kSeq, nullptr}, out.data(), ws);
    benchmark::DoNotOptimize(out.data());
  }
  CheckFinite(state, out);
  state.SetItemsProcessed(state.iterations() * kSeq);
  SetNumThreads(0);
}

// 16 sequences of 50 .. 500 tokens packed back to back (seed 30): [batch]
// starts and lengths, and their rows in all.
struct RaggedRows {
  std::vector<int64_t> start, length;
  int64_t rows = 0;
};
RaggedRows Ragged16() {
  constexpr int64_t kBatch = 16;
  std::mt19937 rng(30);
  std::uniform_int_distribution<int64_t> length_of(50, 500);
  RaggedRows r{std::vector<int64_t>(kBatch), std::vector<int64_t>(kBatch), 0};
  for (int64_t b = 0; b < kBatch; ++b) {
    r.start[b] = r.rows;
    r.length[b] = length_of(rng);
    r.rows += r.length[b];
  }
  return r;
}

RopeOptions Qwen3Rope() {
  RopeOptions r;
  r.d_head = 128;
  r.base = 1e6;
  r.layout = RopeLayout::kHalf;
  return r;
}

// The layer's four products alone, each over all rows as Linear::Forward
// runs it (activation on the gated product's rows as none: the layer applies
// the gate in its own pass).
void BM_Qwen3Products(benchmark::State& state) {
  SetNumThreads(kThreads);
  const EncoderLayerOptions o = Qwen3Embedding06B(nullptr);
  const AttentionOptions a = WidthsOf(o);
  const RaggedRows ragged = Ragged16();
  const int64_t rows = ragged.rows, d = o.d_model;
  const Weights w = LayerWeights(o);
  const Linear products[] = {
      {w, "self_attn.in_proj_weight", "", a.qkv_width(), d, Precision::kFp32},
      {w, "self_attn.out_proj.weight", "", d, a.heads_width(), Precision::kFp32},
      {w, "linear1.weight", "", 2 * o.d_ff, d, Precision::kFp32},
      {w, "linear2.weight", "", d, o.d_ff, Precision::kFp32}};
  const std::vector<float> x = Uniform(rows * 2 * o.d_ff, -1.0f, 1.0f, 31);  // [rows, widest in]
  std::vector<float> y(static_cast<size_t>(rows * 2 * o.d_ff));              // [rows, widest out]
  for (auto _ : state) {
    for (const Linear& p : products) {
      p.Forward(x.data(), rows, y.data(), kernels::Activation::kIdentity, nullptr);
    }
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(state.iterations() * rows);
  state.counters["tokens"] = static_cast<double>(rows);
  state.counters["GFLOP/s"] = benchmark::Counter(ProductFlops(o, rows) * 1e-9 * state.iterations(),
                                                 benchmark::Counter::kIsRate);
  SetNumThreads(0);
}

void BM_Qwen3Layer(benchmark::State& state) {
  SetNumThreads(kThreads);
  const Rope rope(Qwen3Rope());
  const EncoderLayerOptions o = Qwen3Embedding06B(&rope);
  const RaggedRows ragged = Ragged16();
  const int64_t rows = ragged.rows;
  const Spans spans{ragged.start.data(), ragged.length.data(),
                    static_cast<int64_t>(ragged.start.size())};
  const Weights w = LayerWeights(o);
  const EncoderLayer layer(w, "", o);
  EncoderLayerWorkspace ws(rows, o);
  const std::vector<float> x = Uniform(rows * o.d_model, -1.0f, 1.0f, 31);  // [rows, d_model]
  std::vector<float> out(x.size());                                         // [rows, d_model]
  for (auto _ : state) {
    layer.ForwardSpans(x.data(), rows, spans, out.data(), ws);
    benchmark::DoNotOptimize(out.data());
  }
  CheckFinite(state, out);
  const double products = ProductFlops(o, rows);
  state.SetItemsProcessed(state.iterations() * rows);
  state.counters["tokens"] = static_cast<double>(rows);
  state.counters["GFLOP/s"] =
      benchmark::Counter(products * 1e-9 * state.iterations(), benchmark::Counter::kIsRate);
  SetNumThreads(0);
}

BENCHMARK(BM_RotaryLayer)->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WindowLayer)->Arg(-1)->Arg(64)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WindowAttention)->Arg(-1)->Arg(64)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Qwen3Layer)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Qwen3Products)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace phasor

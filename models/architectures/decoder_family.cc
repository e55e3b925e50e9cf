// What the Llama family's checkpoints share (Qwen3, Gemma 3, Llama, Mistral,
// Qwen2): their prefix, their layer's tensor names, their rotary bases and
// scalings (architecture.h).
#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "engine/error.h"
#include "models/architectures/architecture.h"
#include "models/architectures/checkpoint_config.h"
#include "models/config_limits.h"

namespace phasor {

void SwapRowHalves(Tensor& t) {
  if (!t.bf16.empty()) {
    std::rotate(t.bf16.begin(), t.bf16.begin() + t.bf16.size() / 2, t.bf16.end());
  } else {
    std::rotate(t.data.begin(), t.data.begin() + t.data.size() / 2, t.data.end());
  }
}

std::string DecoderPrefix(const Weights& w) { return FindPrefix(w, "embed_tokens.weight"); }

void TranslateDecoderLayer(Weights& w, const std::string& pre, int64_t i, const ModelConfig& c) {
  const std::string from = pre + "layers." + std::to_string(i) + ".";
  const std::string to = "layers." + std::to_string(i) + ".";
  const int64_t d = c.d_model, dh = c.d_head(), ff = c.d_ff;
  const int64_t q_rows = c.n_heads * dh, kv_rows = c.kv_heads() * dh;
  const std::string a = from + "self_attn.";
  w.Put(to + "self_attn.in_proj_weight",
        StackRows(w, {a + "q_proj.weight", a + "k_proj.weight", a + "v_proj.weight"},
                  {{q_rows, d}, {kv_rows, d}, {kv_rows, d}}));
  MoveTensor(w, a + "o_proj.weight", to + "self_attn.out_proj.weight", {d, q_rows});
  if (c.bias.in_proj) {
    w.Put(to + "self_attn.in_proj_bias",
          StackRows(w, {a + "q_proj.bias", a + "k_proj.bias", a + "v_proj.bias"},
                    {{q_rows}, {kv_rows}, {kv_rows}}));
  }
  if (c.bias.out_proj) MoveTensor(w, a + "o_proj.bias", to + "self_attn.out_proj.bias", {d});
  if (c.parts.qk_norm) {
    MoveTensor(w, a + "q_norm.weight", to + "self_attn.q_norm.weight", {dh});
    MoveTensor(w, a + "k_norm.weight", to + "self_attn.k_norm.weight", {dh});
  }
  const std::string mlp = from + "mlp.";  // down(act(gate(x)) · up(x)): up rows, then gate
  w.Put(to + "linear1.weight",
        StackTensors(w, {mlp + "up_proj.weight", mlp + "gate_proj.weight"}, {ff, d}));
  MoveTensor(w, mlp + "down_proj.weight", to + "linear2.weight", {d, ff});
  if (c.bias.linear1) {  // Llama's mlp_bias
    w.Put(to + "linear1.bias",
          StackTensors(w, {mlp + "up_proj.bias", mlp + "gate_proj.bias"}, {ff}));
  }
  if (c.bias.linear2) MoveTensor(w, mlp + "down_proj.bias", to + "linear2.bias", {d});
  MoveTensor(w, from + "input_layernorm.weight", to + "norm1.weight", {d});
  if (c.parts.sandwich) {
    MoveTensor(w, from + "post_attention_layernorm.weight", to + "sa_out_norm.weight", {d});
    MoveTensor(w, from + "pre_feedforward_layernorm.weight", to + "norm2.weight", {d});
    MoveTensor(w, from + "post_feedforward_layernorm.weight", to + "ff_out_norm.weight", {d});
  } else {
    MoveTensor(w, from + "post_attention_layernorm.weight", to + "norm2.weight", {d});
  }
}

int64_t KvHeads(const CheckpointConfig& cfg, int64_t n_heads) {
  const int64_t kv = cfg.Int("num_key_value_heads", 1, n_heads, n_heads);
  if (n_heads % kv != 0) {
    cfg.Fail("num_key_value_heads", std::to_string(kv) + " does not divide num_attention_heads (" +
                                        std::to_string(n_heads) + ")");
  }
  return kv;
}

void RotaryPositions(const CheckpointConfig& cfg, double base, int64_t fallback_positions,
                     ModelConfig& c) {
  if (cfg.Has("pad_token_id")) {
    c.pad_token_id = static_cast<int32_t>(cfg.Int("pad_token_id", 0, c.vocab_size - 1));
  }
  PositionalConfig& pos = c.positional;
  pos.kind = PositionalKind::kRope;
  pos.base = base;
  pos.rope_layout = RopeLayout::kHalf;
  c.max_positions = cfg.Int("max_position_embeddings", 1, kMaxPositions, fallback_positions);
  pos.max_len = std::min<int64_t>(c.max_positions, 8192);
}

std::vector<int64_t> SlidingLayers(const CheckpointConfig& cfg, int64_t n_layers,
                                   bool (*local_by_default)(const CheckpointConfig&, int64_t)) {
  const std::vector<std::string> types = cfg.StringList("layer_types");
  if (!types.empty() && static_cast<int64_t>(types.size()) != n_layers) {
    cfg.Fail("layer_types", "names " + std::to_string(types.size()) + " layers, expected " +
                                std::to_string(n_layers));
  }
  std::vector<int64_t> local;
  for (int64_t i = 0; i < n_layers; ++i) {
    const std::string t = types.empty() ? "" : types[static_cast<size_t>(i)];
    if (!types.empty() && t != "sliding_attention" && t != "full_attention") {
      cfg.Fail("layer_types", "'" + t +
                                  "' is not a layer type phasor reads, expected "
                                  "'sliding_attention' or 'full_attention'");
    }
    if (types.empty() ? local_by_default(cfg, i) : t == "sliding_attention") local.push_back(i);
  }
  return local;
}

double RopeTheta(const CheckpointConfig& cfg, const std::string& legacy_key,
                 const std::string& layer_type, double fallback) {
  if (cfg.Has("rope_parameters")) {
    const CheckpointConfig all = cfg.Child("rope_parameters");
    const CheckpointConfig own =
        layer_type.empty() ? cfg.Child("rope_parameters") : all.Child(layer_type);
    own.Expect("rope_type", {"default"});
    const double theta = own.Number("rope_theta", 0.0);
    if (!(theta > 1)) own.Fail("rope_theta", "expected a number > 1");
    return theta;
  }
  const double theta = cfg.Number(legacy_key, fallback);
  if (!(theta > 1)) cfg.Fail(legacy_key, "expected a number > 1");
  return theta;
}

namespace {

// A required number of a scaling object, > lo (named lo_name).
double ScalingNumber(const CheckpointConfig& s, const std::string& key, double lo,
                     const std::string& lo_name) {
  if (!s.Has(key)) s.Fail(key, "is required by this rope type");
  const double v = s.Number(key, 0.0);
  if (!(v > lo)) s.Fail(key, "expected a number > " + lo_name);
  return v;
}

// s: rope_scaling, or rope_parameters (transformers 5).
RopeScaling DecoderScaling(const CheckpointConfig& s) {
  const std::string key = s.Has("rope_type") ? "rope_type" : "type";
  s.Expect(key, {"default", "linear", "llama3"});
  const std::string type = s.String(key, "default");
  RopeScaling sc;
  if (type == "default") return sc;
  sc.factor = ScalingNumber(s, "factor", 0.0, "0");
  if (type == "linear") {
    sc.type = RopeScalingType::kLinear;
    return sc;
  }
  sc.type = RopeScalingType::kLlama3;
  sc.low_freq_factor = ScalingNumber(s, "low_freq_factor", 0.0, "0");
  sc.high_freq_factor = ScalingNumber(s, "high_freq_factor", sc.low_freq_factor, "low_freq_factor");
  sc.original_max_len = s.Int("original_max_position_embeddings", 1, kMaxPositions, std::nullopt);
  return sc;
}

}  // namespace

ModelConfig DecoderConfig(const CheckpointConfig& cfg, int64_t max_positions) {
  cfg.Expect("hidden_act", {"silu"});
  ModelConfig c;
  ReadSizes(cfg, c, 4096);  // heads of head_dim, not hidden_size / heads
  LayerParts& p = c.parts;
  p.n_kv_heads = KvHeads(cfg, c.n_heads);
  const int64_t fallback_head = c.d_model % c.n_heads == 0 ? c.d_model / c.n_heads : 0;
  p.head_dim = cfg.Int("head_dim", 2, kMaxDModel,
                       fallback_head ? std::optional<int64_t>(fallback_head) : std::nullopt);
  p.norm = NormKind::kRms;
  p.causal = true;
  c.layer_norm_eps = cfg.Number("rms_norm_eps", 1e-6);
  c.activation = Activation::kSilu;
  c.gated_ff = true;
  c.norm_first = true;
  c.final_norm = true;
  c.bias = {false, false, false, false};
  RotaryPositions(cfg, 10000.0, max_positions, c);
  ReadDecoderRope(cfg, 10000.0, c.positional);
  return c;
}

TranslatedModel TranslateDecoder(const ModelFolder& folder, const CheckpointConfig& cfg,
                                 ModelConfig config) {
  TranslatedModel m{std::move(config), LoadCheckpointWeights(folder)};
  if (cfg.Has("auto_map")) {  // gte-Qwen2's modeling_qwen.py, for one
    m.warnings.push_back(cfg.source() +
                         ": key 'auto_map' names the folder's own modeling code, which phasor "
                         "does not run: it computes the model as transformers' own file does "
                         "(causal attention)");
  }
  const ModelConfig& c = m.config;
  Weights& w = m.weights;
  const std::string pre = DecoderPrefix(w);
  MoveTensor(w, pre + "embed_tokens.weight", "embedding.weight", {c.vocab_size, c.d_model});
  for (int64_t i = 0; i < c.n_layers; ++i) TranslateDecoderLayer(w, pre, i, c);
  MoveTensor(w, pre + "norm.weight", "norm.weight", {c.d_model});
  if (w.Has("lm_head.weight")) w.Take("lm_head.weight");  // a causal LM's head: not an embedder's
  return m;
}

void ReadDecoderRope(const CheckpointConfig& cfg, double fallback, PositionalConfig& pos) {
  if (cfg.Has("rope_parameters")) {
    const CheckpointConfig r = cfg.Child("rope_parameters");
    pos.base = r.Number("rope_theta", fallback);
    if (!(pos.base > 1)) r.Fail("rope_theta", "expected a number > 1");
    pos.scaling = DecoderScaling(r);
    return;
  }
  pos.base = cfg.Number("rope_theta", fallback);
  if (!(pos.base > 1)) cfg.Fail("rope_theta", "expected a number > 1");
  if (cfg.Has("rope_scaling")) pos.scaling = DecoderScaling(cfg.Child("rope_scaling"));
}

}  // namespace phasor

// Qwen3 as an embedder (Qwen3-Embedding): transformers' modeling_qwen3.py
// (Qwen3Model, and Qwen3ForCausalLM's model. tensors). Pre-norm
// layers with RMSNorm (input_layernorm, post_attention_layernorm), q, k and
// v of their own heads (grouped-query attention: num_key_value_heads, head
// width head_dim), Qwen3's per-head RMSNorm of q and k before the rotation
// (q_norm, k_norm), rotary positions on the whole head (halves, rope_theta),
// a causal mask, SwiGLU (down(silu(gate) · up)), the final norm. Biases on q,
// k, v and o as attention_bias says. The embedder pools the last token (its
// sentence-transformers folder).
// Refused by name: rope_scaling (YaRN and others not yet checked against a
// golden case), use_sliding_window.
#include <algorithm>
#include <optional>
#include <string>

#include "engine/error.h"
#include "models/architectures/architecture.h"
#include "models/architectures/checkpoint_config.h"

namespace phasor {
namespace {

ModelConfig Qwen3Config(const CheckpointConfig& cfg) {
  cfg.Expect("hidden_act", {"silu"});
  if (cfg.Has("rope_scaling")) cfg.Fail("rope_scaling", "is not supported yet (expected null)");
  if (cfg.Bool("use_sliding_window", false)) {
    cfg.Fail("use_sliding_window", "true is not supported");
  }
  ModelConfig c;
  c.d_model = cfg.Int("hidden_size", 2, 65536);
  c.n_heads = cfg.Int("num_attention_heads", 1, 4096);
  c.n_layers = cfg.Int("num_hidden_layers", 1, 1024);
  c.d_ff = cfg.Int("intermediate_size", 1, int64_t{1} << 20);
  c.vocab_size = cfg.Int("vocab_size", 1, (int64_t{1} << 31) - 1);
  LayerParts& p = c.parts;
  p.n_kv_heads = KvHeads(cfg, c.n_heads);
  const int64_t fallback_head = c.d_model % c.n_heads == 0 ? c.d_model / c.n_heads : 0;
  p.head_dim = cfg.Int("head_dim", 2, 65536,
                       fallback_head ? std::optional<int64_t>(fallback_head) : std::nullopt);
  p.norm = NormKind::kRms;
  p.qk_norm = true;
  p.causal = true;
  c.layer_norm_eps = cfg.Number("rms_norm_eps", 1e-6);
  c.activation = Activation::kSilu;
  c.gated_ff = true;
  c.norm_first = true;
  c.final_norm = true;
  const bool attention_bias = cfg.Bool("attention_bias", false);
  c.bias = {attention_bias, attention_bias, false, false};
  if (cfg.Has("pad_token_id")) {
    c.pad_token_id = static_cast<int32_t>(cfg.Int("pad_token_id", 0, c.vocab_size - 1));
  }
  PositionalConfig& pos = c.positional;
  pos.kind = PositionalKind::kRope;
  pos.base = RopeTheta(cfg, "rope_theta", "", 10000.0);
  pos.rope_layout = RopeLayout::kHalf;
  c.max_positions = cfg.Int("max_position_embeddings", 1, int64_t{1} << 26, 32768);
  pos.max_len = std::min<int64_t>(c.max_positions, 8192);  // the cached rows; past them, made
  return c;
}

}  // namespace

TranslatedModel TranslateQwen3(const ModelFolder& folder, const std::string& config_text) {
  const CheckpointConfig cfg(config_text, folder.Path("config.json"));
  TranslatedModel m{Qwen3Config(cfg), LoadCheckpointWeights(folder)};
  const ModelConfig& c = m.config;
  Weights& w = m.weights;
  const std::string pre = DecoderPrefix(w);
  MoveTensor(w, pre + "embed_tokens.weight", "embedding.weight", {c.vocab_size, c.d_model});
  for (int64_t i = 0; i < c.n_layers; ++i) TranslateDecoderLayer(w, pre, i, c);
  MoveTensor(w, pre + "norm.weight", "norm.weight", {c.d_model});
  if (w.Has("lm_head.weight")) w.Take("lm_head.weight");  // a causal LM's head: not an embedder's
  return m;
}

}  // namespace phasor

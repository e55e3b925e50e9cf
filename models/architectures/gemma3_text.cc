// EmbeddingGemma (Gemma 3's text model, bidirectional): transformers'
// modeling_gemma3.py (Gemma3TextModel with use_bidirectional_attention).
// Token embeddings times sqrt(hidden_size) (float32, as a float32 run of the
// library has it), then pre-norm layers with sandwich norms: x += post_attn(
// attn(input_norm(x))), x += post_ff(mlp(pre_ff(x))); every norm RMSNorm
// with (1 + w), the q and k of each head too (q_norm, k_norm) before the
// rotation; grouped-query attention of head_dim-wide heads with scores scaled
// by query_pre_attn_scalar^-1/2; GeGLU with tanh GELU; the final norm.
// layer_types names each layer sliding or full: a sliding layer's query sees
// the keys within sliding_window / 2 on either side and rotates with
// rope_local_base_freq, a full one sees every key and rotates with
// rope_theta. Refused by name: causal attention (use_bidirectional_attention
// false: Gemma 3 as a decoder), rope_scaling, logit soft-capping.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/error.h"
#include "models/architectures/architecture.h"
#include "models/architectures/checkpoint_config.h"
#include "models/config_limits.h"

namespace phasor {
namespace {

void RefuseUnsupported(const CheckpointConfig& cfg) {
  cfg.Expect("hidden_activation", {"gelu_pytorch_tanh"});
  if (!cfg.Bool("use_bidirectional_attention", false)) {
    cfg.Fail("use_bidirectional_attention",
             "expected true (EmbeddingGemma); Gemma 3 as a causal decoder is not supported");
  }
  if (cfg.Has("rope_scaling")) cfg.Fail("rope_scaling", "is not supported yet (expected null)");
  if (cfg.Has("attn_logit_softcapping")) {
    cfg.Fail("attn_logit_softcapping", "is not supported (expected null)");
  }
}

// Without layer_types: every layer but each _sliding_window_pattern-th
// (transformers' default 6) is sliding.
bool SlidingByDefault(const CheckpointConfig& cfg, int64_t i) {
  return (i + 1) % cfg.Int("_sliding_window_pattern", 1, 1024, 6) != 0;
}

ModelConfig GemmaConfig(const CheckpointConfig& cfg) {
  RefuseUnsupported(cfg);
  ModelConfig c;
  ReadSizes(cfg, c, 4096);  // heads of head_dim
  c.scale_embedding = true;
  c.activation = Activation::kGeluTanh;
  c.gated_ff = true;
  c.norm_first = true;
  c.final_norm = true;
  const bool bias = cfg.Bool("attention_bias", false);
  c.bias = {bias, bias, false, false};
  c.layer_norm_eps = cfg.Number("rms_norm_eps", 1e-6);
  LayerParts& p = c.parts;
  p.n_kv_heads = KvHeads(cfg, c.n_heads);
  p.head_dim = cfg.Int("head_dim", 2, kMaxDModel, 256);
  p.norm = NormKind::kRms;
  p.norm_weight_offset = 1.0;
  p.qk_norm = true;
  p.sandwich = true;
  const double scalar = cfg.Number("query_pre_attn_scalar", static_cast<double>(p.head_dim));
  if (!(scalar > 0)) cfg.Fail("query_pre_attn_scalar", "expected a number > 0");
  p.attention_scale = 1.0 / std::sqrt(scalar);
  p.local.layers = SlidingLayers(cfg, c.n_layers, SlidingByDefault);
  const int64_t radius = cfg.Int("sliding_window", 1, kMaxPositions, 512) / 2;
  p.local.window = {radius, radius};
  p.local.base = RopeTheta(cfg, "rope_local_base_freq", "sliding_attention", 10000.0);
  RotaryPositions(cfg, RopeTheta(cfg, "rope_theta", "full_attention", 1000000.0), 2048, c);
  return c;
}

}  // namespace

TranslatedModel TranslateGemma3Text(const ModelFolder& folder, const std::string& config_text) {
  const CheckpointConfig cfg(config_text, folder.Path("config.json"));
  return TranslateDecoder(folder, cfg, GemmaConfig(cfg));
}

}  // namespace phasor

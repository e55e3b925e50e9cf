// Qwen3 as an embedder (Qwen3-Embedding): transformers' modeling_qwen3.py
// (Qwen3Model, and Qwen3ForCausalLM's model. tensors). Pre-norm
// layers with RMSNorm (input_layernorm, post_attention_layernorm), q, k and
// v of their own heads (grouped-query attention: num_key_value_heads, head
// width head_dim), Qwen3's per-head RMSNorm of q and k before the rotation
// (q_norm, k_norm), rotary positions on the whole head (halves, rope_theta),
// a causal mask, SwiGLU (down(silu(gate) · up)), the final norm. Biases on q,
// k, v and o as attention_bias says. The embedder pools the last token (its
// sentence-transformers folder).
// rope_scaling as DecoderConfig reads it (linear, llama3; others refused by
// name). Refused by name: use_sliding_window.
#include <string>

#include "engine/error.h"
#include "models/architectures/architecture.h"
#include "models/architectures/checkpoint_config.h"

namespace phasor {
namespace {

ModelConfig Qwen3Config(const CheckpointConfig& cfg) {
  if (cfg.Bool("use_sliding_window", false)) {
    cfg.Fail("use_sliding_window", "true is not supported");
  }
  ModelConfig c = DecoderConfig(cfg, 32768);
  c.parts.qk_norm = true;
  const bool attention_bias = cfg.Bool("attention_bias", false);
  c.bias = {attention_bias, attention_bias, false, false};
  return c;
}

}  // namespace

TranslatedModel TranslateQwen3(const ModelFolder& folder, const std::string& config_text) {
  const CheckpointConfig cfg(config_text, folder.Path("config.json"));
  return TranslateDecoder(folder, cfg, Qwen3Config(cfg));
}

}  // namespace phasor

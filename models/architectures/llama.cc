// Llama (Llama 2 and 3, and the embedders built on it): transformers'
// modeling_llama.py (LlamaModel, and LlamaForCausalLM's model. tensors).
// DecoderConfig's layer: RMSNorm pre-norm, grouped-query heads of head_dim
// (default hidden_size / heads), rotary halves with rope_theta and
// rope_scaling "linear" or "llama3", causal, SwiGLU, the final norm. A bias on
// q, k, v and o iff attention_bias, on gate, up and down iff mlp_bias.
// Refused by name: other rope_scaling types (yarn, dynamic, longrope, ...),
// hidden_act other than silu.
#include <string>
#include <utility>

#include "models/architectures/architecture.h"
#include "models/architectures/checkpoint_config.h"

namespace phasor {

TranslatedModel TranslateLlama(const ModelFolder& folder, const std::string& config_text) {
  const CheckpointConfig cfg(config_text, folder.Path("config.json"));
  ModelConfig c = DecoderConfig(cfg, 2048);
  const bool attention_bias = cfg.Bool("attention_bias", false);
  const bool mlp_bias = cfg.Bool("mlp_bias", false);
  c.bias = {attention_bias, attention_bias, mlp_bias, mlp_bias};
  return TranslateDecoder(folder, cfg, std::move(c));
}

}  // namespace phasor

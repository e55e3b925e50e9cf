// Qwen2 (Qwen2, Qwen2.5, gte-Qwen2-*-instruct): transformers'
// modeling_qwen2.py (Qwen2Model, and Qwen2ForCausalLM's model. tensors).
// Llama's layer (DecoderConfig: RMSNorm pre-norm, grouped-query heads of
// hidden_size / heads, rotary halves with rope_theta, causal, SwiGLU, the
// final norm) with a bias on q, k and v always (no key says so), none on o or
// the MLP, and no norm of q and k.
// Refused by name: use_sliding_window true (Qwen2's windowed upper layers),
// is_causal false (a bidirectional variant), layer_types other than
// "full_attention".
#include <string>
#include <utility>

#include "models/architectures/architecture.h"
#include "models/architectures/checkpoint_config.h"

namespace phasor {

TranslatedModel TranslateQwen2(const ModelFolder& folder, const std::string& config_text) {
  const CheckpointConfig cfg(config_text, folder.Path("config.json"));
  if (cfg.Bool("use_sliding_window", false)) {
    cfg.Fail("use_sliding_window", "true is not supported");
  }
  if (!cfg.Bool("is_causal", true)) cfg.Fail("is_causal", "false is not supported");
  for (const std::string& t : cfg.StringList("layer_types")) {
    if (t != "full_attention") {
      cfg.Fail("layer_types", "'" + t + "' is not supported, expected 'full_attention'");
    }
  }
  ModelConfig c = DecoderConfig(cfg, 32768);
  c.bias.in_proj = true;
  return TranslateDecoder(folder, cfg, std::move(c));
}

}  // namespace phasor

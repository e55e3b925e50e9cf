// Mistral (Mistral 7B and the embedders built on it, e5-mistral,
// SFR-Embedding-Mistral): transformers' modeling_mistral.py (MistralModel,
// and MistralForCausalLM's model. tensors). DecoderConfig's layer, no bias,
// head_dim (default hidden_size / heads); every layer attends within
// sliding_window (MistralConfig's default 4096 when the key is absent, none
// when null): masking_utils' sliding_window_causal_mask_function lets query i
// see key j iff i - sliding_window < j <= i, that is KeyWindow{before =
// sliding_window - 1, after = 0}.
// Refused by name: rope_scaling types other than "linear" and "llama3",
// hidden_act other than silu.
#include <string>
#include <utility>

#include "models/architectures/architecture.h"
#include "models/architectures/checkpoint_config.h"

namespace phasor {

TranslatedModel TranslateMistral(const ModelFolder& folder, const std::string& config_text) {
  const CheckpointConfig cfg(config_text, folder.Path("config.json"));
  ModelConfig c = DecoderConfig(cfg, 131072);
  const bool windowed = cfg.Has("sliding_window") || !cfg.Present("sliding_window");
  if (windowed) {
    const int64_t window = cfg.Int("sliding_window", 1, int64_t{1} << 40, 4096);
    LocalAttention& local = c.parts.local;
    for (int64_t l = 0; l < c.n_layers; ++l) local.layers.push_back(l);
    local.window = {window - 1, 0};
  }
  return TranslateDecoder(folder, cfg, std::move(c));
}

}  // namespace phasor

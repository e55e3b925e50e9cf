// The encoder of M2M100 and NLLB (Hugging Face's modeling_m2m_100.py:
// M2M100Model, M2M100ForConditionalGeneration under "model."): token rows ×
// sqrt(d_model) (scale_embedding), plus the sinusoid of
// M2M100SinusoidalPositionalEmbedding, split sin | cos with frequencies
// 10000^(-i/(d/2 - 1)) (phasor's split layout, denominator half_minus_one) at
// positions pad_token_id + 1 + j, made by phasor's PE; pre-LN layers, then the
// encoder's final LayerNorm. The decoder and the LM head are not read.
#include <string>
#include <vector>

#include "engine/error.h"
#include "models/architectures/architecture.h"
#include "models/architectures/checkpoint_config.h"
#include "models/config_limits.h"

namespace phasor {
namespace {

const LayerNames kM2M100Layer = {"self_attn.q_proj.",
                                 "self_attn.k_proj.",
                                 "self_attn.v_proj.",
                                 "self_attn.out_proj.",
                                 "self_attn_layer_norm.",
                                 "fc1.",
                                 "fc2.",
                                 "final_layer_norm."};

ModelConfig M2M100Config(const CheckpointConfig& cfg) {
  cfg.Expect("activation_function", {"relu", "gelu", "gelu_new", "silu", "swish"});
  ModelConfig c;
  c.vocab_size = cfg.Int("vocab_size", 1, kMaxVocab);
  c.d_model = cfg.Int("d_model", 4, kMaxDModel);
  c.n_heads = cfg.Int("encoder_attention_heads", 1, c.d_model);
  c.n_layers = cfg.Int("encoder_layers", 1, kMaxLayers);
  c.d_ff = cfg.Int("encoder_ffn_dim", 1, kMaxDFF);
  c.activation = CheckpointActivation(cfg.String("activation_function", "relu"));
  c.norm_first = true;
  c.final_norm = true;
  c.layer_norm_eps = 1e-5;  // nn.LayerNorm's default, as the model builds them
  c.scale_embedding = cfg.Bool("scale_embedding", false);
  const int64_t pad = cfg.Int("pad_token_id", 0, c.vocab_size - 1, 1);
  c.pad_token_id = static_cast<int32_t>(pad);
  PositionalConfig& p = c.positional;
  p.kind = PositionalKind::kSinusoidal;
  p.layout = PeLayout::kSplit;
  p.denominator = PeDenominator::kHalfMinusOne;
  p.offset = pad + 1;  // create_position_ids_from_input_ids
  // The model's table holds max_position_embeddings + 2 rows (its offset).
  p.max_len = cfg.Int("max_position_embeddings", 1, kMaxPositions, 1024) + 2;
  return c;
}

}  // namespace

TranslatedModel TranslateM2M100(const ModelFolder& folder, const std::string& config_text) {
  const CheckpointConfig cfg(config_text, folder.Path("config.json"));
  TranslatedModel m{M2M100Config(cfg), LoadCheckpointWeights(folder)};
  const ModelConfig& c = m.config;
  Weights& w = m.weights;
  const int64_t d = c.d_model, ff = c.d_ff;
  const std::string pre = FindPrefix(w, "encoder.layer_norm.weight");
  MoveEncoderTokenTable(w, pre, {c.vocab_size, d});
  for (int64_t i = 0; i < c.n_layers; ++i) {
    TranslateLayer(w, pre + "encoder.layers." + std::to_string(i) + ".", i, kM2M100Layer, d, ff);
  }
  MoveTensor(w, pre + "encoder.layer_norm.weight", "norm.weight", {d});
  MoveTensor(w, pre + "encoder.layer_norm.bias", "norm.bias", {d});
  // What phasor does not run: the decoder, the LM head, a stored sinusoid.
  DropDecoder(w, pre, {"encoder.embed_positions."});
  return m;
}

}  // namespace phasor

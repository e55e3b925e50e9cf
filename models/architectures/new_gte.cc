// Alibaba's GTE v1.5 (gte-base-en-v1.5, gte-large-en-v1.5, gte-multilingual)
// and the encoders on its code: the remote code "new-impl" (modeling.py,
// NewModel). BERT's embeddings without a position table (word + token type
// when type_vocab_size > 0, then LayerNorm), post-LN layers whose q, k and v
// are one product with a bias (qkv_proj, q | k | v by head, as in_proj),
// rotary positions on the whole head (halves) with base rope_theta, and
// rope_scaling {"type": "ntk", "factor": s} as NTKScalingRotaryEmbedding
// computes it at every length (phasor's "gte" scaling: inv_i =
// base^(-2i/d)·s^(-(2i+2)/d)); a gated feed-forward up_gate_proj (no bias; up
// rows, then the gate) with down_proj (bias): down(up · act(gate)).
// Refused by name: RMSNorm (layer_norm_type rms_norm), learned or no
// positions, q, k, v apart (pack_qkv false), log-n attention scaling, and the
// mixed_b form of the NTK scaling.
#include <algorithm>
#include <string>
#include <utility>

#include "engine/error.h"
#include "models/architectures/architecture.h"
#include "models/architectures/checkpoint_config.h"

namespace phasor {
namespace {

void RefuseUnsupported(const CheckpointConfig& cfg) {
  cfg.Expect("layer_norm_type", {"layer_norm"});
  cfg.Expect("position_embedding_type", {"rope"});
  cfg.Expect("hidden_act", {"gelu", "gelu_new", "gelu_pytorch_tanh", "silu", "relu"});
  if (!cfg.Bool("pack_qkv", true)) cfg.Fail("pack_qkv", "false is not supported");
  if (cfg.Bool("logn_attention_scale", false)) {
    cfg.Fail("logn_attention_scale", "true is not supported");
  }
}

RopeScaling GteScaling(const CheckpointConfig& cfg) {
  RopeScaling sc;
  if (!cfg.Has("rope_scaling")) return sc;
  const CheckpointConfig rs = cfg.Child("rope_scaling");
  rs.Expect("type", {"ntk"});
  if (rs.Has("mixed_b")) rs.Fail("mixed_b", "the mixed NTK scaling is not supported");
  const double factor = rs.Number("factor", 1.0);
  if (!(factor > 0)) rs.Fail("factor", "expected a number > 0");
  if (factor > 1) {  // NTKScalingRotaryEmbedding changes nothing up to 1
    sc.type = RopeScalingType::kGte;
    sc.factor = factor;
  }
  return sc;
}

ModelConfig GteConfig(const CheckpointConfig& cfg) {
  RefuseUnsupported(cfg);
  ModelConfig c;
  ReadSizes(cfg, c);
  c.activation = CheckpointActivation(cfg.String("hidden_act", "gelu"));
  c.gated_ff = true;
  c.layer_norm_eps = cfg.Number("layer_norm_eps", 1e-12);
  c.token_types = cfg.Int("type_vocab_size", 0, 1024, 0);
  c.embedding_norm = true;
  c.bias = {true, true, false, true};
  RotaryPositions(cfg, cfg.Number("rope_theta", 10000.0), 8192, c);
  c.positional.scaling = GteScaling(cfg);
  return c;
}

void TranslateLayer(Weights& w, const std::string& pre, int64_t i, const ModelConfig& c) {
  const std::string from = pre + "encoder.layer." + std::to_string(i) + ".";
  const std::string to = "layers." + std::to_string(i) + ".";
  const int64_t d = c.d_model, ff = c.d_ff;
  MoveTensor(w, from + "attention.qkv_proj.weight", to + "self_attn.in_proj_weight", {3 * d, d});
  MoveTensor(w, from + "attention.qkv_proj.bias", to + "self_attn.in_proj_bias", {3 * d});
  MoveTensor(w, from + "attention.o_proj.weight", to + "self_attn.out_proj.weight", {d, d});
  MoveTensor(w, from + "attention.o_proj.bias", to + "self_attn.out_proj.bias", {d});
  MoveTensor(w, from + "mlp.up_gate_proj.weight", to + "linear1.weight", {2 * ff, d});
  MoveTensor(w, from + "mlp.down_proj.weight", to + "linear2.weight", {d, ff});
  MoveTensor(w, from + "mlp.down_proj.bias", to + "linear2.bias", {d});
  for (const auto& [own, phasor] : {std::pair{"attn_ln.", "norm1."}, {"mlp_ln.", "norm2."}}) {
    MoveTensor(w, from + own + "weight", to + phasor + "weight", {d});
    MoveTensor(w, from + own + "bias", to + phasor + "bias", {d});
  }
}

}  // namespace

TranslatedModel TranslateNewGte(const ModelFolder& folder, const std::string& config_text) {
  const CheckpointConfig cfg(config_text, folder.Path("config.json"));
  TranslatedModel m{GteConfig(cfg), LoadCheckpointWeights(folder)};
  const ModelConfig& c = m.config;
  Weights& w = m.weights;
  const std::string pre = FindPrefix(w, "embeddings.word_embeddings.weight");
  MoveBertEmbeddings(w, pre + "embeddings.", pre + "embeddings.LayerNorm.", c);
  for (int64_t i = 0; i < c.n_layers; ++i) TranslateLayer(w, pre, i, c);
  for (const std::string& name : w.Names()) {  // a pooler or MLM head: not the encoder's output
    if (name.rfind(pre + "pooler.", 0) == 0 || name.rfind("lm_head.", 0) == 0) w.Take(name);
  }
  return m;
}

}  // namespace phasor

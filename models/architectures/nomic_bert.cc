// nomic-embed-text (v1, v1.5) and nomic-bert-2048: Nomic's NomicBertModel
// (its remote code, modeling_hf_nomic_bert.py). BERT's embeddings without a
// position table (word + token type, then emb_ln), post-LN layers whose q, k
// and v are one product (Wqkv, q | k | v by head, as in_proj), rotary
// positions on the first rotary_emb_fraction of each head (halves, or pairs
// with rotary_emb_interleaved) with base rotary_emb_base, and a gated
// feed-forward: fc2(fc11(x) · act(fc12(x))), SwiGLU (silu) or GeGLU (gelu);
// "gelu" and its tanh forms make the plain fc1/fc2 one. Biases as
// qkv_proj_bias (Wqkv and out_proj), mlp_fc1_bias and mlp_fc2_bias say.
// Refused by name: rotary_scaling_factor (dynamic NTK), prenorm (whose
// output is the last feed-forward's, without its residual), causal, xPos
// (rotary_emb_scale_base), RMSNorm, parallel blocks, sigmoid "glu", and
// learned positions (rotary_emb_fraction 0).
#include <cmath>
#include <string>

#include "engine/error.h"
#include "models/architectures/architecture.h"
#include "models/architectures/checkpoint_config.h"
#include "models/config_limits.h"

namespace phasor {
namespace {

void RefuseUnsupported(const CheckpointConfig& cfg) {
  cfg.Expect("activation_function",
             {"swiglu", "geglu", "gelu", "gelu_new", "gelu_fast", "gelu_pytorch_tanh"});
  for (const char* key : {"prenorm", "causal", "use_rms_norm", "parallel_block"}) {
    if (cfg.Bool(key, false)) cfg.Fail(key, "true is not supported");
  }
  if (cfg.Has("rotary_emb_scale_base")) {
    cfg.Fail("rotary_emb_scale_base", "xPos scaling is not supported (expected null)");
  }
  // Nomic's dynamic NTK takes the padded batch's length; not read until a
  // golden case checks phasor's per-sequence form against it.
  if (cfg.Has("rotary_scaling_factor")) {
    cfg.Fail("rotary_scaling_factor", "dynamic NTK scaling is not supported yet (expected null)");
  }
}

// The rotary part of a head: rotary_emb_fraction of d_head, even and > 0.
int64_t RotaryDim(const CheckpointConfig& cfg, int64_t d_head) {
  const double fraction = cfg.Number("rotary_emb_fraction", 0.0);
  const double dim = d_head * fraction;
  if (!(fraction > 0 && fraction <= 1) || dim != std::floor(dim) ||
      static_cast<int64_t>(dim) % 2 != 0) {
    cfg.Fail("rotary_emb_fraction",
             "expected a fraction in (0, 1] of the head (" + std::to_string(d_head) +
                 ") giving an even number of dimensions (learned positions are not supported)");
  }
  return static_cast<int64_t>(dim);
}

ModelConfig NomicConfig(const CheckpointConfig& cfg) {
  RefuseUnsupported(cfg);
  ModelConfig c;
  c.d_model = cfg.Int("n_embd", 2, kMaxDModel);
  c.n_heads = cfg.Int("n_head", 1, c.d_model);
  c.n_layers = cfg.Int("n_layer", 1, kMaxLayers);
  c.d_ff = cfg.Int("n_inner", 1, int64_t{1} << 20, 4 * c.d_model);
  // The token table's rows: vocab_size rounded up to pad_vocab_size_multiple.
  const int64_t vocab = cfg.Int("vocab_size", 1, kMaxVocab);
  const int64_t multiple = cfg.Int("pad_vocab_size_multiple", 1, 1 << 16, 1);
  c.vocab_size = (vocab + multiple - 1) / multiple * multiple;
  const std::string act = cfg.String("activation_function", "gelu");
  c.gated_ff = act == "swiglu" || act == "geglu";
  c.activation = act == "swiglu"                   ? Activation::kSilu
                 : act == "geglu" || act == "gelu" ? Activation::kGelu
                                                   : Activation::kGeluTanh;
  c.layer_norm_eps = cfg.Number("layer_norm_epsilon", 1e-5);
  c.token_types = cfg.Int("type_vocab_size", 0, 1024, 2);
  c.embedding_norm = true;
  const bool qkv_bias = cfg.Bool("qkv_proj_bias", true);
  c.bias = {qkv_bias, qkv_bias, cfg.Bool("mlp_fc1_bias", true), cfg.Bool("mlp_fc2_bias", true)};
  if (cfg.Has("pad_token_id")) {
    c.pad_token_id = static_cast<int32_t>(cfg.Int("pad_token_id", 0, vocab - 1));
  }
  PositionalConfig& p = c.positional;
  p.kind = PositionalKind::kRope;
  p.base = cfg.Number("rotary_emb_base", 10000.0);
  p.rope_layout =
      cfg.Bool("rotary_emb_interleaved", false) ? RopeLayout::kInterleaved : RopeLayout::kHalf;
  p.rotary_dim = RotaryDim(cfg, c.d_head());
  p.max_len = cfg.Int("n_positions", 1, kMaxPositions, 2048);
  return c;
}

void TranslateNomicLayer(Weights& w, int64_t i, const ModelConfig& c) {
  const std::string from = "encoder.layers." + std::to_string(i) + ".";
  const std::string to = "layers." + std::to_string(i) + ".";
  const int64_t d = c.d_model, ff = c.d_ff;
  MoveTensor(w, from + "attn.Wqkv.weight", to + "self_attn.in_proj_weight", {3 * d, d});
  MoveTensor(w, from + "attn.out_proj.weight", to + "self_attn.out_proj.weight", {d, d});
  if (c.bias.in_proj) {
    MoveTensor(w, from + "attn.Wqkv.bias", to + "self_attn.in_proj_bias", {3 * d});
    MoveTensor(w, from + "attn.out_proj.bias", to + "self_attn.out_proj.bias", {d});
  }
  const std::string mlp = from + "mlp.";
  if (c.gated_ff) {  // up (fc11) rows, then gate (fc12) rows
    w.Put(to + "linear1.weight",
          StackTensors(w, {mlp + "fc11.weight", mlp + "fc12.weight"}, {ff, d}));
    if (c.bias.linear1) {
      w.Put(to + "linear1.bias", StackTensors(w, {mlp + "fc11.bias", mlp + "fc12.bias"}, {ff}));
    }
  } else {
    MoveTensor(w, mlp + "fc1.weight", to + "linear1.weight", {ff, d});
    if (c.bias.linear1) MoveTensor(w, mlp + "fc1.bias", to + "linear1.bias", {ff});
  }
  MoveTensor(w, mlp + "fc2.weight", to + "linear2.weight", {d, ff});
  if (c.bias.linear2) MoveTensor(w, mlp + "fc2.bias", to + "linear2.bias", {d});
  for (const char* norm : {"norm1.", "norm2."}) {
    MoveTensor(w, from + norm + "weight", to + norm + "weight", {d});
    MoveTensor(w, from + norm + "bias", to + norm + "bias", {d});
  }
}

}  // namespace

TranslatedModel TranslateNomicBert(const ModelFolder& folder, const std::string& config_text) {
  const CheckpointConfig cfg(config_text, folder.Path("config.json"));
  TranslatedModel m{NomicConfig(cfg), LoadCheckpointWeights(folder)};
  const ModelConfig& c = m.config;
  Weights& w = m.weights;
  MoveBertEmbeddings(w, "embeddings.", "emb_ln.", c);
  for (int64_t i = 0; i < c.n_layers; ++i) TranslateNomicLayer(w, i, c);
  // NomicBertModel's pooler, when saved, is not what its embedders use.
  for (const char* name : {"pooler.dense.weight", "pooler.dense.bias"}) {
    if (w.Has(name)) w.Take(name);
  }
  return m;
}

}  // namespace phasor

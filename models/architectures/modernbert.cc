// ModernBERT (ModernBERT-base/large, gte-modernbert, modernbert-embed):
// transformers' modeling_modernbert.py (ModernBertModel, and the model.
// tensors of its *ForMaskedLM and other heads). Token embeddings and a norm
// (no positions added), pre-norm layers: x += Wo(attn(attn_norm(x))), with
// no attn_norm in layer 0, x += mlp(mlp_norm(x)); q, k and v one product
// (Wqkv), rotary positions on the whole head (halves); GeGLU whose fused Wi
// holds the activated input rows first, then the gate (Wo(act(input) ·
// gate)); the final norm. Every norm is LayerNorm, with a bias as norm_bias
// says, eps norm_eps; products with a bias as attention_bias and mlp_bias
// say. Layer i is global when i % global_attn_every_n_layers == 0 (or as
// layer_types names it): its queries see every key and rotate with
// global_rope_theta; the others see the keys within local_attention / 2 on
// either side and rotate with local_rope_theta. ModernBertForSequenceClassification's
// head (TranslateClassifier) on the first row or the mean of the rows.
#include <algorithm>
#include <string>
#include <vector>

#include "engine/error.h"
#include "models/architectures/architecture.h"
#include "models/architectures/checkpoint_config.h"
#include "models/config_limits.h"

namespace phasor {
namespace {

// Layer i is global when i % global_attn_every_n_layers == 0.
bool LocalByDefault(const CheckpointConfig& cfg, int64_t i) {
  return i % cfg.Int("global_attn_every_n_layers", 1, 1024, 3) != 0;
}

ModelConfig ModernBertConfig(const CheckpointConfig& cfg) {
  cfg.Expect("hidden_activation", {"gelu", "gelu_new", "gelu_pytorch_tanh", "silu", "relu"});
  ModelConfig c;
  ReadSizes(cfg, c);
  c.activation = CheckpointActivation(cfg.String("hidden_activation", "gelu"));
  c.gated_ff = true;
  c.norm_first = true;
  c.final_norm = true;
  c.embedding_norm = true;
  c.layer_norm_eps = cfg.Number("norm_eps", 1e-5);
  const bool attention_bias = cfg.Bool("attention_bias", false);
  const bool mlp_bias = cfg.Bool("mlp_bias", false);
  c.bias = {attention_bias, attention_bias, mlp_bias, mlp_bias};
  LayerParts& p = c.parts;
  p.norm_bias = cfg.Bool("norm_bias", false);
  p.first_attention_norm = false;
  p.local.layers = SlidingLayers(cfg, c.n_layers, LocalByDefault);
  const int64_t radius = cfg.Int("local_attention", 2, kMaxPositions, 128) / 2;
  p.local.window = {radius, radius};
  p.local.base = RopeTheta(cfg, "local_rope_theta", "sliding_attention", 10000.0);
  RotaryPositions(cfg, RopeTheta(cfg, "global_rope_theta", "full_attention", 160000.0), 8192, c);
  return c;
}

void TranslateLayer(Weights& w, const std::string& pre, int64_t i, const ModelConfig& c) {
  const std::string from = pre + "layers." + std::to_string(i) + ".";
  const std::string to = "layers." + std::to_string(i) + ".";
  const int64_t d = c.d_model, ff = c.d_ff;
  struct Product {
    std::string from, to;
    Shape shape;
    bool bias;
  };
  const Product products[] = {{"attn.Wqkv.", "self_attn.in_proj_", {3 * d, d}, c.bias.in_proj},
                              {"attn.Wo.", "self_attn.out_proj.", {d, d}, c.bias.out_proj},
                              {"mlp.Wi.", "linear1.", {2 * ff, d}, c.bias.linear1},
                              {"mlp.Wo.", "linear2.", {d, ff}, c.bias.linear2}};
  for (const Product& p : products) {
    // in_proj's names are PyTorch's: in_proj_weight, in_proj_bias.
    MoveTensor(w, from + p.from + "weight", to + p.to + "weight", p.shape);
    if (p.bias) MoveTensor(w, from + p.from + "bias", to + p.to + "bias", {p.shape[0]});
  }
  // Wi: the activated input rows, then the gate; phasor's linear1: up (the
  // factor), then the activated gate.
  for (const char* part : {"weight", "bias"}) {
    const std::string name = to + "linear1." + part;
    if (!w.Has(name)) continue;
    Tensor t = w.Take(name);
    SwapRowHalves(t);
    w.Put(name, std::move(t));
  }
  const char* norms[][2] = {{"attn_norm.", "norm1."}, {"mlp_norm.", "norm2."}};
  for (const auto& [own, phasor] : norms) {
    if (i == 0 && std::string(own) == "attn_norm.") continue;  // the identity in layer 0
    MoveTensor(w, from + own + "weight", to + phasor + "weight", {d});
    if (c.parts.norm_bias) MoveTensor(w, from + own + "bias", to + phasor + "bias", {d});
  }
}

// classifier_activation (ACT2FN's names) as a head's activation.
HeadActivation ClassifierActivation(const CheckpointConfig& cfg) {
  cfg.Expect("classifier_activation",
             {"gelu", "gelu_new", "gelu_pytorch_tanh", "relu", "silu", "swish", "tanh", "linear"});
  const std::string name = cfg.String("classifier_activation", "gelu");
  if (name == "tanh") return HeadActivation::kTanh;
  if (name == "linear") return HeadActivation::kIdentity;
  switch (CheckpointActivation(name)) {
    case Activation::kRelu:
      return HeadActivation::kRelu;
    case Activation::kGeluTanh:
      return HeadActivation::kGeluTanh;
    case Activation::kSilu:
      return HeadActivation::kSilu;
    default:
      return HeadActivation::kGelu;
  }
}

// ModernBertForSequenceClassification's head over the final norm's rows,
// pooled as classifier_pooling says (cls: the first row; mean: the mean over
// the real tokens): head.dense (bias as classifier_bias says), the
// activation, head.norm (the model's LayerNorm: norm_eps, norm_bias), then
// classifier (with its bias, whatever classifier_bias says).
void TranslateClassifier(const CheckpointConfig& cfg, TranslatedModel& m) {
  cfg.Expect("classifier_pooling", {"cls", "mean"});
  ModelConfig& c = m.config;
  c.head_pooling =
      cfg.String("classifier_pooling", "cls") == "mean" ? Pooling::kMean : Pooling::kCls;
  DenseProduct dense{c.d_model, ClassifierActivation(cfg)};
  dense.bias = cfg.Bool("classifier_bias", false);
  AddHeadProduct(m, "head.dense.", dense);
  AddHeadNorm(m, "head.norm.", HeadNorm{c.layer_norm_eps, c.parts.norm_bias});
  AddHeadProduct(m, "classifier.", DenseProduct{NumLabels(cfg), HeadActivation::kIdentity});
}

void MoveNorm(Weights& w, const std::string& from, const std::string& to, const ModelConfig& c) {
  MoveTensor(w, from + "weight", to + "weight", {c.d_model});
  if (c.parts.norm_bias) MoveTensor(w, from + "bias", to + "bias", {c.d_model});
}

}  // namespace

TranslatedModel TranslateModernBert(const ModelFolder& folder, const std::string& config_text) {
  const CheckpointConfig cfg(config_text, folder.Path("config.json"));
  TranslatedModel m{ModernBertConfig(cfg), LoadCheckpointWeights(folder)};
  const ModelConfig& c = m.config;
  Weights& w = m.weights;
  const std::string pre = FindPrefix(w, "embeddings.tok_embeddings.weight");
  MoveTensor(w, pre + "embeddings.tok_embeddings.weight", "embedding.weight",
             {c.vocab_size, c.d_model});
  MoveNorm(w, pre + "embeddings.norm.", "embedding_norm.", c);
  for (int64_t i = 0; i < c.n_layers; ++i) TranslateLayer(w, pre, i, c);
  MoveNorm(w, pre + "final_norm.", "norm.", c);
  const bool classifier = HasSequenceClassifier(cfg, w, "classifier.weight");
  if (classifier) TranslateClassifier(cfg, m);
  // A masked LM's head and decoder: not an encoder's output.
  for (const std::string& name : w.Names()) {
    if ((!classifier && name.rfind("head.", 0) == 0) || name.rfind("decoder.", 0) == 0) {
      w.Take(name);
    }
  }
  return m;
}

}  // namespace phasor

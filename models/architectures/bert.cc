// BERT and its descendants with BERT's layout (Hugging Face's modeling_bert.py
// and modeling_roberta.py: BertModel, RobertaModel, XLMRobertaModel,
// CamembertModel, and the same under a "bert." or "roberta." prefix in their
// *For* checkpoints): word + learned position + token type embeddings, a
// LayerNorm over their sum, post-LN layers whose q, k and v are separate
// products (stacked here into in_proj, as nn.MultiheadAttention holds them).
// RoBERTa's positions start at pad_token_id + 1. The heads, as products over
// the first token's final row (ModelConfig::head): BERT's pooler (pooler.dense,
// tanh) and, in BertForSequenceClassification, its classifier after it;
// RobertaForSequenceClassification's classifier.dense (tanh) and
// classifier.out_proj, without a pooler. Token types as the input gives them
// (a pair's second text of type 1), type 0 otherwise.
#include <string>
#include <vector>

#include "engine/error.h"
#include "models/architectures/architecture.h"
#include "models/architectures/checkpoint_config.h"
#include "models/config_limits.h"

namespace phasor {
namespace {

const LayerNames kBertLayer = {"attention.self.query.",
                               "attention.self.key.",
                               "attention.self.value.",
                               "attention.output.dense.",
                               "attention.output.LayerNorm.",
                               "intermediate.dense.",
                               "output.dense.",
                               "output.LayerNorm."};

ModelConfig BertConfig(const CheckpointConfig& cfg, bool roberta) {
  cfg.Expect("position_embedding_type", {"absolute"});
  cfg.Expect("hidden_act", {"gelu", "relu", "gelu_new", "gelu_pytorch_tanh", "silu", "swish"});
  if (cfg.Bool("is_decoder", false)) cfg.Fail("is_decoder", "true is not supported (an encoder)");
  if (cfg.Bool("add_cross_attention", false)) {
    cfg.Fail("add_cross_attention", "true is not supported (an encoder)");
  }
  ModelConfig c;
  ReadSizes(cfg, c);
  c.activation = CheckpointActivation(cfg.String("hidden_act", "gelu"));
  c.layer_norm_eps = cfg.Number("layer_norm_eps", 1e-12);
  c.token_types = cfg.Int("type_vocab_size", 1, 1024, 2);
  c.embedding_norm = true;
  const int64_t pad = cfg.Int("pad_token_id", 0, c.vocab_size - 1, roberta ? 1 : 0);
  c.pad_token_id = static_cast<int32_t>(pad);
  PositionalConfig& p = c.positional;
  p.kind = PositionalKind::kLearned;
  p.max_len = cfg.Int("max_position_embeddings", 1, kMaxPositions, 512);
  p.offset = roberta ? pad + 1 : 0;  // RoBERTa's create_position_ids_from_input_ids
  if (p.offset >= p.max_len) {
    cfg.Fail("max_position_embeddings",
             std::to_string(p.max_len) + " leaves no position after pad_token_id + 1");
  }
  return c;
}

// The pooler and the classification head, when the checkpoint holds them.
void TranslateBertHead(const CheckpointConfig& cfg, bool roberta, const std::string& pre,
                       TranslatedModel& m) {
  Weights& w = m.weights;
  const std::string pooler = pre + "pooler.dense.";
  const bool classifier = IsSequenceClassifier(cfg);
  if (roberta && classifier && w.Has("classifier.out_proj.weight")) {
    AddRobertaClassificationHead(m, cfg, "classifier.", pooler);
    return;
  }
  if (w.Has(pooler + "weight")) {
    AddHeadProduct(m, pooler, m.config.d_model, HeadActivation::kTanh);  // BertPooler
    m.config.pooler_products = 1;
  }
  // BertForSequenceClassification's classifier reads the pooler's output.
  if (!roberta && classifier && m.config.pooler_products == 1 && w.Has("classifier.weight")) {
    AddHeadProduct(m, "classifier.", NumLabels(cfg), HeadActivation::kIdentity);
  }
}

}  // namespace

TranslatedModel TranslateBert(const ModelFolder& folder, const std::string& config_text) {
  const CheckpointConfig cfg(config_text, folder.Path("config.json"));
  const std::string type = cfg.String("model_type", "");
  TranslatedModel m{BertConfig(cfg, type != "bert"), LoadCheckpointWeights(folder)};
  const ModelConfig& c = m.config;
  Weights& w = m.weights;
  const int64_t d = c.d_model;
  const std::string pre = FindPrefix(w, "embeddings.word_embeddings.weight");
  const std::string e = pre + "embeddings.";
  MoveBertEmbeddings(w, e, e + "LayerNorm.", c);
  for (int64_t i = 0; i < c.n_layers; ++i) {
    TranslateLayer(w, pre + "encoder.layer." + std::to_string(i) + ".", i, kBertLayer, d, c.d_ff);
  }
  if (w.Has(pre + "embeddings.position_ids")) w.Take(pre + "embeddings.position_ids");
  TranslateBertHead(cfg, type != "bert", pre, m);
  return m;
}

}  // namespace phasor

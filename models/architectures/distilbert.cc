// DistilBERT (Hugging Face's modeling_distilbert.py: DistilBertModel, and the
// same under "distilbert." in its *For* checkpoints): word + position
// embeddings and their LayerNorm, post-LN blocks with separate q, k and v
// products, no token types. With sinusoidal_pos_embds the position table is
// Attention Is All You Need's sinusoid (pos / 10000^(2(j/2)/dim), sin at even
// j, cos at odd: phasor's default interleaved layout), made by phasor's PE in
// the config's mode instead of read from the file. DistilBertForSequenceClassification's
// head: pre_classifier + ReLU on the first token's final row, then classifier.
#include <string>
#include <vector>

#include "engine/error.h"
#include "models/architectures/architecture.h"
#include "models/architectures/checkpoint_config.h"
#include "models/config_limits.h"

namespace phasor {
namespace {

const LayerNames kDistilBertLayer = {"attention.q_lin.",   "attention.k_lin.",  "attention.v_lin.",
                                     "attention.out_lin.", "sa_layer_norm.",    "ffn.lin1.",
                                     "ffn.lin2.",          "output_layer_norm."};

ModelConfig DistilBertConfig(const CheckpointConfig& cfg) {
  cfg.Expect("activation", {"gelu", "relu"});
  ModelConfig c;
  c.vocab_size = cfg.Int("vocab_size", 1, kMaxVocab);
  c.d_model = cfg.Int("dim", 2, kMaxDModel);
  c.n_heads = cfg.Int("n_heads", 1, c.d_model);
  c.n_layers = cfg.Int("n_layers", 1, kMaxLayers);
  c.d_ff = cfg.Int("hidden_dim", 1, kMaxDFF);
  c.activation = CheckpointActivation(cfg.String("activation", "gelu"));
  c.layer_norm_eps = 1e-12;  // fixed in modeling_distilbert.py
  c.embedding_norm = true;
  c.pad_token_id = static_cast<int32_t>(cfg.Int("pad_token_id", 0, c.vocab_size - 1, 0));
  PositionalConfig& p = c.positional;
  p.max_len = cfg.Int("max_position_embeddings", 1, kMaxPositions, 512);
  p.kind = cfg.Bool("sinusoidal_pos_embds", false) ? PositionalKind::kSinusoidal
                                                   : PositionalKind::kLearned;
  // Its library holds the sinusoid as a table of max_position_embeddings rows:
  // a longer line is refused (or truncated) in every PE mode, as past a learned one.
  c.max_positions = p.max_len;
  return c;  // sinusoidal: base 10000, interleaved, denominator d_model, offset 0
}

}  // namespace

TranslatedModel TranslateDistilBert(const ModelFolder& folder, const std::string& config_text) {
  const CheckpointConfig cfg(config_text, folder.Path("config.json"));
  TranslatedModel m{DistilBertConfig(cfg), LoadCheckpointWeights(folder)};
  const ModelConfig& c = m.config;
  Weights& w = m.weights;
  const int64_t d = c.d_model, ff = c.d_ff;
  const std::string pre = FindPrefix(w, "embeddings.word_embeddings.weight");
  const std::string e = pre + "embeddings.";
  MoveTensor(w, e + "word_embeddings.weight", "embedding.weight", {c.vocab_size, d});
  if (c.positional.kind == PositionalKind::kLearned) {
    MoveTensor(w, e + "position_embeddings.weight", "positional.weight", {c.positional.max_len, d});
  } else if (w.Has(e + "position_embeddings.weight")) {
    w.Take(e + "position_embeddings.weight");  // the sinusoid, which phasor makes itself
  }
  MoveTensor(w, e + "LayerNorm.weight", "embedding_norm.weight", {d});
  MoveTensor(w, e + "LayerNorm.bias", "embedding_norm.bias", {d});
  for (int64_t i = 0; i < c.n_layers; ++i) {
    TranslateLayer(w, pre + "transformer.layer." + std::to_string(i) + ".", i, kDistilBertLayer, d,
                   ff);
  }
  if (IsSequenceClassifier(cfg) && w.Has("pre_classifier.weight")) {
    AddHeadProduct(m, "pre_classifier.", d, HeadActivation::kRelu);
    AddHeadProduct(m, "classifier.", NumLabels(cfg), HeadActivation::kIdentity);
  }
  return m;
}

}  // namespace phasor

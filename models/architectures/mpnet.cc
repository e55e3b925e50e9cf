// MPNet (all-mpnet-base-v2, multi-qa-mpnet, mpnet-base): transformers'
// modeling_mpnet.py (MPNetModel, and the mpnet. tensors of its heads). BERT's
// layer and embeddings without token types: word + learned position rows,
// positions from pad_token_id + 1 (create_position_ids_from_input_ids), their
// LayerNorm; post-LN layers with q, k, v and o apart (attention.attn.*), and
// the relative position bias MPNetEncoder adds to every layer's scores after
// their 1/sqrt(d_head) scale: W[bucket(j − i), h] from
// encoder.relative_attention_bias.weight [32, heads], T5's bidirectional
// buckets (16 a side, exact below 8, logarithmic up to distance 128). phasor
// writes it once as a bias by distance (parts.distance_bias_radius 128: every
// distance past it falls in the last bucket). MPNetPooler as BERT's pooler;
// MPNetForSequenceClassification's head (mpnet. before the encoder's names)
// as RoBERTa's: classifier.dense + tanh on the first token's final row, then
// classifier.out_proj.
// Refused by name: relative_attention_num_buckets other than 32 (the
// library's bias always takes 32).
#include <algorithm>
#include <cmath>
#include <string>

#include "engine/error.h"
#include "models/architectures/architecture.h"
#include "models/architectures/checkpoint_config.h"
#include "models/config_limits.h"

namespace phasor {
namespace {

constexpr int64_t kBuckets = 32, kMaxDistance = 128;

const LayerNames kMpnetLayer = {"attention.attn.q.", "attention.attn.k.",    "attention.attn.v.",
                                "attention.attn.o.", "attention.LayerNorm.", "intermediate.dense.",
                                "output.dense.",     "output.LayerNorm."};

// relative_position_bucket(j − i, bidirectional, 32 buckets, max_distance 128).
int64_t Bucket(int64_t d) {
  constexpr int64_t half = kBuckets / 2, exact = half / 2;
  const int64_t base = d > 0 ? half : 0, a = std::abs(d);
  if (a < exact) return base + a;
  const double log_part = std::log(static_cast<double>(a) / exact) /
                          std::log(static_cast<double>(kMaxDistance) / exact) * (half - exact);
  return base + std::min<int64_t>(half - 1, exact + static_cast<int64_t>(log_part));
}

ModelConfig MpnetConfig(const CheckpointConfig& cfg) {
  cfg.Expect("hidden_act", {"gelu", "relu", "gelu_new", "gelu_pytorch_tanh", "silu", "swish"});
  if (cfg.Int("relative_attention_num_buckets", 1, 1 << 20, kBuckets) != kBuckets) {
    cfg.Fail("relative_attention_num_buckets", "expected 32 (the library's bias takes 32)");
  }
  ModelConfig c;
  ReadSizes(cfg, c);
  c.activation = CheckpointActivation(cfg.String("hidden_act", "gelu"));
  c.layer_norm_eps = cfg.Number("layer_norm_eps", 1e-5);
  c.embedding_norm = true;
  const int64_t pad = cfg.Int("pad_token_id", 0, c.vocab_size - 1, 1);
  c.pad_token_id = static_cast<int32_t>(pad);
  c.parts.distance_bias_radius = kMaxDistance;
  PositionalConfig& p = c.positional;
  p.kind = PositionalKind::kLearned;
  p.max_len = cfg.Int("max_position_embeddings", 1, kMaxPositions, 514);
  p.offset = pad + 1;
  if (p.offset >= p.max_len) {
    cfg.Fail("max_position_embeddings",
             std::to_string(p.max_len) + " leaves no position after pad_token_id + 1");
  }
  return c;
}

// The bias by distance d = j − i in [−128, 128], [heads, 257]: W[bucket(d), h].
void TranslateBias(Weights& w, const std::string& from, const ModelConfig& c) {
  Tensor table = w.Take(from);
  if (table.shape != Shape{kBuckets, c.n_heads}) {
    throw Error(w.source() + ": tensor '" + from + "': got " + ShapeToString(table.shape) +
                ", expected " + ShapeToString({kBuckets, c.n_heads}));
  }
  w.Put("mpnet_bucket_table", std::move(table));
  const float* t = w.Require("mpnet_bucket_table", {kBuckets, c.n_heads});
  const int64_t width = 2 * kMaxDistance + 1;
  std::vector<float> bias(static_cast<size_t>(c.n_heads * width));
  for (int64_t h = 0; h < c.n_heads; ++h) {
    for (int64_t d = -kMaxDistance; d <= kMaxDistance; ++d) {
      bias[h * width + d + kMaxDistance] = t[Bucket(d) * c.n_heads + h];
    }
  }
  w.Take("mpnet_bucket_table");
  w.Add("distance_bias.weight", {c.n_heads, width}, std::move(bias));
}

}  // namespace

TranslatedModel TranslateMpnet(const ModelFolder& folder, const std::string& config_text) {
  const CheckpointConfig cfg(config_text, folder.Path("config.json"));
  TranslatedModel m{MpnetConfig(cfg), LoadCheckpointWeights(folder)};
  const ModelConfig& c = m.config;
  Weights& w = m.weights;
  const int64_t d = c.d_model;
  const std::string pre = FindPrefix(w, "embeddings.word_embeddings.weight");
  const std::string e = pre + "embeddings.";
  MoveBertEmbeddings(w, e, e + "LayerNorm.", c);
  for (int64_t i = 0; i < c.n_layers; ++i) {
    TranslateLayer(w, pre + "encoder.layer." + std::to_string(i) + ".", i, kMpnetLayer, d, c.d_ff);
  }
  TranslateBias(w, pre + "encoder.relative_attention_bias.weight", c);
  if (HasSequenceClassifier(cfg, w, "classifier.out_proj.weight")) {
    AddRobertaClassificationHead(m, cfg, "classifier.", pre + "pooler.dense.");
  } else if (w.Has(pre + "pooler.dense.weight")) {
    AddHeadProduct(m, pre + "pooler.dense.", d, HeadActivation::kTanh);  // MPNetPooler
    m.config.pooler_products = 1;
  }
  for (const std::string& name : w.Names()) {  // the masked LM's head
    if (name.rfind("lm_head.", 0) == 0) w.Take(name);
  }
  return m;
}

}  // namespace phasor

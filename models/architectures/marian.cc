// The encoder of Marian / opus-mt models (Hugging Face's modeling_marian.py:
// MarianModel, MarianMTModel under "model."): token rows × sqrt(d_model) if
// scale_embedding, plus the sinusoid of MarianSinusoidalPositionalEmbedding,
// split sin | cos with frequencies 10000^(-2i/d_model) (phasor's split layout,
// denominator d_model) at positions 0, 1, ... (no pad offset), made by
// phasor's PE; post-LN layers; no embedding norm and no final norm. The
// model's table holds max_position_embeddings rows and does not grow: that
// bounds a sequence. The decoder, final_logits_bias and the LM head are not
// read.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "engine/error.h"
#include "layers/sinusoidal.h"
#include "models/architectures/architecture.h"
#include "models/architectures/checkpoint_config.h"
#include "models/config_limits.h"

namespace phasor {
namespace {

const LayerNames kMarianLayer = {"self_attn.q_proj.",
                                 "self_attn.k_proj.",
                                 "self_attn.v_proj.",
                                 "self_attn.out_proj.",
                                 "self_attn_layer_norm.",
                                 "fc1.",
                                 "fc2.",
                                 "final_layer_norm."};

// Keys of Marian configs written with BART's options; modeling_marian runs
// only the value given here (post-LN, no embedding norm, no final norm, the
// static sinusoid). Another value is refused, naming key and value.
void ExpectFlag(const CheckpointConfig& cfg, const std::string& key, bool supported) {
  if (cfg.Has(key) && cfg.Bool(key, supported) != supported) {
    cfg.Fail(key, std::string(supported ? "false" : "true") + " is not supported, expected " +
                      (supported ? "true" : "false"));
  }
}

ModelConfig MarianConfig(const CheckpointConfig& cfg) {
  cfg.Expect("activation_function", {"swish", "silu", "gelu", "gelu_new", "relu"});
  ExpectFlag(cfg, "normalize_before", false);
  ExpectFlag(cfg, "normalize_embedding", false);
  ExpectFlag(cfg, "layernorm_embedding", false);
  ExpectFlag(cfg, "add_final_layer_norm", false);
  ExpectFlag(cfg, "static_position_embeddings", true);
  ModelConfig c;
  c.vocab_size = cfg.Int("vocab_size", 1, kMaxVocab);
  c.d_model = cfg.Int("d_model", 2, kMaxDModel);
  if (c.d_model % 2 != 0) {
    cfg.Fail("d_model", std::to_string(c.d_model) + " is odd, expected an even number");
  }
  c.n_heads = cfg.Int("encoder_attention_heads", 1, c.d_model);
  c.n_layers = cfg.Int("encoder_layers", 1, kMaxLayers);
  c.d_ff = cfg.Int("encoder_ffn_dim", 1, kMaxDFF);
  c.activation = CheckpointActivation(cfg.String("activation_function", "gelu"));
  c.norm_first = false;
  c.final_norm = false;
  c.layer_norm_eps = 1e-5;  // nn.LayerNorm's default, as the model builds them
  c.scale_embedding = cfg.Bool("scale_embedding", false);
  if (cfg.Has("pad_token_id")) {
    c.pad_token_id = static_cast<int32_t>(cfg.Int("pad_token_id", 0, c.vocab_size - 1));
  }
  PositionalConfig& p = c.positional;
  p.kind = PositionalKind::kSinusoidal;
  p.layout = PeLayout::kSplit;
  p.denominator = PeDenominator::kDModel;
  p.offset = 0;  // MarianSinusoidalPositionalEmbedding.forward: arange(seq_len)
  p.max_len = cfg.Int("max_position_embeddings", 1, kMaxPositions, 1024);
  c.max_positions = p.max_len;
  return c;
}

// How far a stored position table may lie from phasor's sinusoid before it is
// worth a warning. Every value is in [-1, 1]: phasor's rows are within 2e-6 of
// the exact sinusoid, a float32 table within 6e-8 and a float16 one (read as
// float32, so not told apart from it) within 2^-12, half an ulp below 1; 1e-3
// is four times that. A bfloat16 table is within 2^-9: 2^-8. A table of
// another layout, denominator or offset differs by order 1.
double StoredTableTolerance(const Tensor& t) { return t.bf16.empty() ? 1e-3 : 1.0 / 256; }

float StoredValue(const Tensor& t, int64_t k) {
  if (t.bf16.empty()) return t.data[k];
  const uint32_t bits = static_cast<uint32_t>(t.bf16[k]) << 16;
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}

// A stored sinusoid ([max_position_embeddings, d_model]) against the one
// phasor computes, row block by row block (no second table in memory): a
// warning naming the largest difference if it exceeds the tolerance, else "".
std::string CompareStoredTable(const Tensor& t, const std::string& name, const ModelConfig& c,
                               const std::string& source) {
  const int64_t rows = c.positional.max_len, d = c.d_model;
  if (t.shape != Shape{rows, d}) {
    throw Error(source + ": tensor '" + name + "': got " + ShapeToString(t.shape) + ", expected " +
                ShapeToString({rows, d}));
  }
  SinusoidalOptions o = c.positional.Sinusoidal(d);
  o.mode = PeMode::kOnTheFly;
  const SinusoidalEncoding pe(o);
  constexpr int64_t kBlockRows = 64;
  std::vector<float> mine(static_cast<size_t>(kBlockRows * d));  // [kBlockRows, d_model]
  double worst = 0;
  int64_t worst_pos = 0;
  for (int64_t first = 0; first < rows; first += kBlockRows) {
    const int64_t n = std::min(kBlockRows, rows - first);
    pe.Fill(first, n, mine.data());
    for (int64_t k = 0; k < n * d; ++k) {
      const float stored = StoredValue(t, first * d + k);
      const double diff = std::isnan(stored) ? INFINITY : std::fabs(double{stored} - mine[k]);
      if (diff > worst) {
        worst = diff;
        worst_pos = first + k / d;
      }
    }
  }
  const double tol = StoredTableTolerance(t);
  if (worst <= tol) return "";
  char text[96];
  std::snprintf(text, sizeof text, "%.3g (position %lld), more than the %.3g", worst,
                static_cast<long long>(worst_pos), tol);
  return source + ": tensor '" + name + "' differs from the sinusoid phasor computes by up to " +
         text + " its stored format's rounding allows; phasor uses its own";
}

}  // namespace

TranslatedModel TranslateMarian(const ModelFolder& folder, const std::string& config_text) {
  const CheckpointConfig cfg(config_text, folder.Path("config.json"));
  TranslatedModel m{MarianConfig(cfg), LoadCheckpointWeights(folder)};
  const ModelConfig& c = m.config;
  Weights& w = m.weights;
  const int64_t d = c.d_model, ff = c.d_ff;
  const std::string pre = FindPrefix(w, "encoder.layers.0.self_attn.q_proj.weight");
  MoveEncoderTokenTable(w, pre, {c.vocab_size, d});
  const std::string positions = pre + "encoder.embed_positions.weight";
  if (w.Has(positions)) {
    std::string warning = CompareStoredTable(w.Take(positions), positions, c, w.source());
    if (!warning.empty()) m.warnings.push_back(std::move(warning));
  }
  for (int64_t i = 0; i < c.n_layers; ++i) {
    TranslateLayer(w, pre + "encoder.layers." + std::to_string(i) + ".", i, kMarianLayer, d, ff);
  }
  DropDecoder(w, pre);  // the decoder, the LM head and its bias
  return m;
}

}  // namespace phasor

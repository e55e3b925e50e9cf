// A model's config.json, parsed and validated (see README "Model directory").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/kernels/activations.h"
#include "layers/dense_head.h"
#include "layers/encoder_layer.h"
#include "layers/rope.h"
#include "layers/sinusoidal.h"
#include "models/pooling.h"

namespace phasor {

// The feed-forward activation: the kernels' own enum, kRelu or kGelu (the
// exact erf form); kIdentity is not a config value.
using Activation = kernels::Activation;
using kernels::ToString;  // "relu", "gelu"
enum class PositionalKind { kSinusoidal, kLearned, kRope, kNone };

// The "positional" object of config.json. A "preset" (models/presets.h) is
// resolved while parsing: the fields hold plain values, preset only its name.
struct PositionalConfig {
  PositionalKind kind = PositionalKind::kSinusoidal;
  double base = 10000.0;
  PeLayout layout = PeLayout::kInterleaved;  // kinds sinusoidal, learned
  PeDenominator denominator = PeDenominator::kDModel;
  int64_t offset = 0;      // position of the first token of a sequence
  int64_t max_len = 4096;  // rows of the cached (or learned) table
  PeMode mode = PeMode::kAuto;
  std::string preset;  // "" or the preset whose values were filled in

  // Kind rope only ("layout" is read into rope_layout for kind rope).
  RopeLayout rope_layout = RopeLayout::kHalf;
  int64_t rotary_dim = 0;  // 0: the head dim
  RopeScaling scaling;
  // Not a config.json key: a load option (Encoder::Load), for every rotary
  // layer, local ones included.
  RopeAngles rope_angles = RopeAngles::kExact;

  SinusoidalOptions Sinusoidal(int64_t d_model) const {
    return SinusoidalOptions{d_model, base, layout, denominator, max_len, mode};
  }
  RopeOptions RopeOptionsFor(int64_t d_head) const {
    return RopeOptions{d_head,  rotary_dim, base,    rope_layout, offset,
                       max_len, mode,       scaling, rope_angles};
  }
};

// The layers' later parts (config.json "parts"; README "Model directory"):
// the attention's shape and mask, the norms' kind, and which layers attend
// locally. Defaults are nn.TransformerEncoder's.
struct LocalAttention {
  std::vector<int64_t> layers;  // the local layers, ascending
  KeyWindow window = {};        // the keys each of their queries sees
  double base = 0.0;            // their rotary base; 0: positional.base
};

struct LayerParts {
  int64_t n_kv_heads = 0;                // grouped-query attention; 0: n_heads
  int64_t head_dim = 0;                  // 0: d_model / n_heads
  NormKind norm = NormKind::kLayerNorm;  // every norm of the model
  bool norm_bias = true;                 // LayerNorm's bias
  double norm_weight_offset = 0.0;       // RMSNorm: Gemma's (1 + w)
  bool qk_norm = false;                  // per-head norms of q and k
  double attention_scale = 0.0;          // of the scores; 0: 1/sqrt(head_dim)
  bool causal = false;                   // keys after the query masked
  bool sandwich = false;                 // pre-LN: norms after each sublayer too
  bool first_attention_norm = true;      // pre-LN: layer 0's norm1 (ModernBERT: none)
  // A learned bias of the scores by distance, clamped to ±radius (MPNet's
  // relative position bias, one table for every layer): tensor
  // distance_bias.weight [n_heads, 2·radius + 1]. 0: none.
  int64_t distance_bias_radius = 0;
  LocalAttention local;

  bool IsLocal(int64_t layer) const;
};

struct ModelConfig {
  int64_t vocab_size = 1000;
  int64_t d_model = 256;
  int64_t n_heads = 4;
  int64_t n_layers = 4;
  int64_t d_ff = 1024;
  Activation activation = Activation::kRelu;
  bool norm_first = false;  // false: post-LN, true: pre-LN
  // A gated feed-forward (layers/feed_forward.h: linear1 of 2·d_ff outputs, the
  // up values then the gate; hidden = up · activation(gate)): SwiGLU with silu,
  // GeGLU with gelu. config.json "gated_ff".
  bool gated_ff = false;
  // Which of each layer's products carry a bias: all by default. config.json
  // "bias": {"in_proj", "out_proj", "linear1", "linear2"} (each true/false).
  LayerBiases bias;
  bool final_norm = false;  // tensors norm.weight / norm.bias exist
  double layer_norm_eps = 1e-5;
  bool scale_embedding = false;  // token embedding × sqrt(d_model) before PE
  // BERT's token types: token_type.weight [token_types, d_model]; a token is
  // of type 0 unless the input gives its type (a pair's second text: 1).
  // 0: none.
  int64_t token_types = 0;
  // A LayerNorm over the embedding's sum (tensors embedding_norm.weight and
  // .bias, layer_norm_eps), before the first layer, as BERT's.
  bool embedding_norm = false;
  std::optional<int32_t> pad_token_id;
  PositionalConfig positional;
  // Products over one row per sequence (layers/dense_head.h, tensors
  // head.{i}.weight / .bias, a norm's head.{i}.norm.weight / .bias): the
  // first pooler_products give the pooler output (BERT's), all of them the
  // logits of a classification head when there are more. Empty: neither.
  std::vector<DenseProduct> head;
  int64_t pooler_products = 0;
  // The row the head reads: the sequence's first final row (kCls), or the
  // mean of its final rows over its real tokens (kMean: ModernBERT's
  // classifier_pooling "mean"). config.json "head.pooling".
  Pooling head_pooling = Pooling::kCls;
  // A sentence-transformers folder's Dense modules (modules.json), applied
  // between its pooling and its Normalize (tensors sentence_dense.{i}.weight /
  // .bias). Not a config.json key: read from the folder with its weights.
  std::vector<DenseProduct> sentence_dense;
  // The most positions the model's own library places (a checkpoint's
  // max_position_embeddings, where its sinusoid is a table that does not
  // grow): a longer sequence is refused or truncated as past a learned table,
  // whatever the PE mode. 0: only the positional table's own bound. Not a
  // key of phasor's config.json.
  int64_t max_positions = 0;
  LayerParts parts;

  int64_t d_head() const { return parts.head_dim > 0 ? parts.head_dim : d_model / n_heads; }
  int64_t kv_heads() const { return parts.n_kv_heads > 0 ? parts.n_kv_heads : n_heads; }
  // The options of every norm (d_model, eps, kind, bias, offset).
  LayerNormOptions NormOptions() const;
  // Layer l's options (its rotation set by the caller).
  EncoderLayerOptions LayerOptions(int64_t l, Precision precision) const;
};

// Parses config.json text. source names the file in messages. Throws Error
// naming the key for: invalid JSON, a wrong type, a value out of range, an
// unknown key or value (activation, kind, layout, denominator, mode, preset,
// scaling type), a key the kind or scaling type does not use, n_heads not
// dividing d_model, pad_token_id outside the vocabulary, a RoPE problem
// (layers/rope.h FindRopeProblem).
ModelConfig ParseConfig(const std::string& json_text, const std::string& source);

// The keys of a "positional.scaling" object that type t reads ("type" aside).
std::vector<std::string> RopeScalingKeysOf(RopeScalingType t);
// Parses the "positional.scaling" object alone (JSON text), with the checks
// and messages of ParseConfig; source names the input in messages.
RopeScaling ParseRopeScaling(const std::string& json_text, const std::string& source);

// Reads and parses a config.json file, then CheckModelMemory; Error if it cannot
// be read (engine/model_folder.h ReadJsonFile's rule: missing, a directory, not
// a regular file, over 64 MiB).
ModelConfig LoadConfig(const std::string& path);

// The JSON text of a config, which ParseConfig reads back to the same values.
std::string ConfigToJson(const ModelConfig& config);

// Throws Error (prefixed with source) unless every field is in range.
void ValidateConfig(const ModelConfig& config, const std::string& source);

// Throws Error (CheckAllocation, engine/memory_limit.h) if ModelBytes(config)
// exceeds the memory limit. LoadConfig calls it with the file's own PE mode.
void CheckModelMemory(const ModelConfig& config, const std::string& source);

// Bytes the model will hold once loaded: every float32 weight the config
// implies (embedding, layers, final norm, learned table) plus the cached PE
// table (sinusoidal, modes cached and auto). For a config that passed the range
// checks of ValidateConfig (no overflow there).
uint64_t ModelBytes(const ModelConfig& config);

const char* ToString(PositionalKind v);

}  // namespace phasor

// The encoder model: embedding + positional encoding, a stack of
// nn.TransformerEncoderLayer-equivalent layers, and the optional final norm.
//
//   x = embedding[t]·(sqrt(d_model) if scale_embedding) + PE[offset + j]
//   x = layer_{n-1}(... layer_0(x))
//   x = norm(x)                                         (final_norm only)
//
// Usage:
//   auto enc = Encoder::Load("my-model");               // a model directory
//   EncoderWorkspace ws = enc->MakeWorkspace(batch * seq);
//   enc->Forward({ids, batch, seq, lengths}, EncoderStage::kFinal, out, ws);
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/weights.h"
#include "layers/dense_head.h"
#include "layers/embedding.h"
#include "layers/encoder_layer.h"
#include "layers/layer_norm.h"
#include "layers/rope.h"
#include "layers/sinusoidal.h"
#include "models/config.h"

namespace phasor {

class ModelFolder;  // engine/model_folder.h

// A padded batch of token ids: sequence b is ids[b·seq .. (b + 1)·seq), its
// first lengths[b] tokens given as real (lengths null: all seq).
struct PaddedIds {
  const int32_t* ids = nullptr;  // [batch, seq]
  int64_t batch = 0;
  int64_t seq = 0;
  const int64_t* lengths = nullptr;  // [batch] or null
  const int32_t* types = nullptr;    // [batch, seq] token types, or null: all type 0
};

// Packed sequences: sequence b is ids[offsets[b] .. offsets[b + 1]).
struct PackedIds {
  const int32_t* ids = nullptr;      // [offsets[batch]]
  const int64_t* offsets = nullptr;  // [batch + 1]
  int64_t batch = 0;
  const int32_t* types = nullptr;  // [offsets[batch]] token types, or null: all type 0
};

enum class EncoderStage {
  kEmbeddings,  // the encoder's input x (embedding + PE)
  kFinal,       // the final hidden states
  // The final hidden states from Forward; per sequence, the model's head on its
  // first row or their mean (models/heads.h, applied by CorpusEncoder): its pooler output, or
  // the logits of its classification head.
  kPooler,
  kLogits,
};

// Activations for one caller, sized once for up to max_tokens tokens
// (batch · seq); Forward allocates nothing. One workspace per concurrent caller.
struct EncoderWorkspace {
  int64_t max_tokens = 0;
  EncoderLayerWorkspace layer;
  std::vector<int64_t> lengths;  // [max_tokens] effective lengths of a batch
  std::vector<int32_t> ids;      // [max_tokens] a padded batch's real ids, packed
  std::vector<int32_t> types;    // [max_tokens] their token types, grown when given
  std::vector<int64_t> spans;    // [2, batch] starts | lengths, grown to the batch
};

class Encoder {
 public:
  // The model of a folder (engine/model_folder.h): its config.json, its
  // weights (model.safetensors or the shards of model.safetensors.index.json),
  // a sentence-transformers folder's Dense modules. mode, if set, replaces the
  // config's positional mode. Throws Error naming the file, key or tensor.
  // precision: of the weight products (layers/precision.h). angles: how every
  // rotary layer forms its angles (layers/rope.h; a model without rotary
  // positions has none, and is the same either way).
  static std::unique_ptr<Encoder> Load(const ModelFolder& folder,
                                       std::optional<PeMode> mode = std::nullopt,
                                       Precision precision = Precision::kFp32,
                                       RopeAngles angles = RopeAngles::kExact);
  // Load(*ModelFolder::Open(dir), mode, precision, angles).
  static std::unique_ptr<Encoder> Load(const std::string& dir,
                                       std::optional<PeMode> mode = std::nullopt,
                                       Precision precision = Precision::kFp32,
                                       RopeAngles angles = RopeAngles::kExact);

  // A model from a config and its weights (e.g. the toy model). Throws Error
  // for an invalid config or a missing or misshapen tensor. The float32
  // matrices of the weight products are released from weights once packed
  // (weights() keeps their names and shapes, not their values).
  Encoder(ModelConfig config, Weights weights, Precision precision = Precision::kFp32);
  Encoder(const Encoder&) = delete;
  Encoder& operator=(const Encoder&) = delete;

  // Bytes a workspace for max_tokens tokens holds (saturating: a size that
  // overflows comes out as UINT64_MAX).
  uint64_t WorkspaceBytes(int64_t max_tokens) const;

  // Throws Error if max_tokens is negative or the workspace would exceed the
  // memory limit (engine/memory_limit.h), before allocating anything.
  EncoderWorkspace MakeWorkspace(int64_t max_tokens) const;

  // Checks all that ids and sizes alone decide, so that a caller can refuse a
  // batch before allocating anything for it: the shape against the largest
  // one call takes (engine/size_limits.h), every id against the vocabulary
  // (naming sequence and position), and every position against the PE or
  // RoPE table and 2^40. Throws Error. Forward makes the same checks.
  void CheckInput(const int32_t* ids, int64_t batch, int64_t seq) const;

  // Token types (BERT's segments): each in [0, config().token_types), or 0 for
  // a model without them. types: [rows], sequence b in rows start[b] ..
  // start[b] + length[b]; Error naming sequence and position otherwise.
  void CheckTokenTypes(const int32_t* types, const Spans& spans) const;

  // in.ids: [batch, seq] row-major; in.lengths: [batch] real tokens per
  // sequence (null: all seq), the rest being padding that attention masks out. With a
  // pad_token_id, trailing pad ids count as padding too.
  // out: [batch·seq, d_model]. Rows at padded positions are 0 in stage kFinal;
  // only the real rows are computed (as ForwardPacked), so padding costs
  // nothing but its zeros.
  // Throws Error for an id outside the vocabulary (naming sequence and
  // position), a position the PE cannot produce, or batch·seq > ws.max_tokens.
  // on_layer, if set, is called with the number of layers done after each one
  // (e.g. to draw progress on a long run).
  void Forward(const PaddedIds& in, EncoderStage stage, float* out, EncoderWorkspace& ws,
               const std::function<void(int64_t)>& on_layer = nullptr) const;

  // Packed sequences (every row a real token, FlashAttention's cu_seqlens):
  // sequence b is in.ids[in.offsets[b] .. in.offsets[b + 1]), token j of it
  // at position offset + j. in.offsets: [batch + 1], offsets[0] = 0,
  // nondecreasing; in.ids: [offsets[batch]]; out: [offsets[batch], d_model]. Every product, norm
  // and feed-forward runs over the real rows only, attention per sequence over its own keys: a
  // ragged batch costs its real tokens. A sequence's rows are the same bits as when it is encoded
  // alone or in a padded batch. Throws Error as Forward, naming the sequence, and for bad offsets
  // or more than ws.max_tokens rows.
  void ForwardPacked(const PackedIds& in, EncoderStage stage, float* out, EncoderWorkspace& ws,
                     const std::function<void(int64_t)>& on_layer = nullptr) const;

  // The most tokens a sequence can hold: the positions of a learned table, or
  // of a cached one (mode cached), from the first position on; else those
  // below 2^40; at most config().max_positions less the first position if set.
  int64_t MaxSequenceLength() const;
  // Whose positions those are, for messages: "the model's learned positional
  // table (max_len 512, from position 0)".
  std::string MaxSequenceLengthOf() const;

  const ModelConfig& config() const { return config_; }
  const Weights& weights() const { return weights_; }
  // The products of config().head and config().sentence_dense; null if none.
  const DenseHead* head() const { return head_.get(); }
  const DenseHead* sentence_dense() const { return sentence_dense_.get(); }
  Precision precision() const { return precision_; }
  // The warning about NaN or Inf in the weights as loaded (engine/finite.h
  // NonFiniteWarning, read before any tensor was released); empty if none.
  const std::string& non_finite_warning() const { return non_finite_warning_; }
  // What loading found worth a warning, one line each (the CLI prints each
  // after "phasor: warning: "): what the checkpoint's architecture file found
  // (a stored table that is not the sinusoid), NaN or Inf in the weights, and
  // tensors the model does not use (most often a misspelt name).
  std::vector<std::string> LoadWarnings() const;

  // Bytes the weights take in memory as the encoder holds them: the packed
  // products at their precision plus the float32 tensors still held.
  int64_t WeightBytes() const;

 private:
  // Checks packed offsets (and, with RoPE, the longest sequence's positions)
  // and writes their spans: starts [batch], then lengths [batch].
  void PackedSpans(const int32_t* ids, const int64_t* offsets, int64_t batch, int64_t* spans) const;
  // Error unless t is one of the model's token types (token b, j names it).
  void CheckTokenType(int32_t t, int64_t b, int64_t j) const;
  // x: [rows, d_model] embedded rows; adds to row r its token type's row (less
  // type 0's, which the learned table holds). types: [rows].
  void AddTokenTypes(const int32_t* types, int64_t rows, float* x) const;
  // The layers and final norm over rows already embedded, in place. [rows, d_model]
  void RunLayers(float* x, int64_t rows, const Spans& spans, EncoderWorkspace& ws,
                 const std::function<void(int64_t)>& on_layer) const;

  ModelConfig config_;
  Weights weights_;
  Precision precision_ = Precision::kFp32;
  std::string non_finite_warning_;
  // The architecture file's warnings (TranslatedModel::warnings).
  std::vector<std::string> translate_warnings_;
  std::unique_ptr<SinusoidalEncoding> pe_;  // kind sinusoidal only
  std::unique_ptr<Rope> rope_;              // kind rope only: q, k rotation in every layer
  std::unique_ptr<Rope> local_rope_;        // local layers' rotation, when their base differs
  // Every token is of type 0 unless told: type 0's row joins a table once at
  // load, the learned positions' where there is one, else the token table's.
  void FoldTokenTypes(const float*& learned);
  std::vector<float> typed_table_;  // [max_len, d_model] learned rows + token type 0
  std::vector<float> type_deltas_;  // [token_types, d_model] type t's row less type 0's
  std::unique_ptr<Embedding> embedding_;
  std::unique_ptr<LayerNorm> embedding_norm_;  // config embedding_norm only
  EncoderLayerOptions layer_options_;          // every layer's, and their workspace's
  std::vector<std::unique_ptr<EncoderLayer>> layers_;
  std::unique_ptr<LayerNorm> final_norm_;
  std::unique_ptr<DenseHead> head_;            // config head only
  std::unique_ptr<DenseHead> sentence_dense_;  // config sentence_dense only
};

}  // namespace phasor

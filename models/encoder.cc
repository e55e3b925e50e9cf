#include "models/encoder.h"

#include <algorithm>
#include <cstring>

#include "engine/error.h"
#include "engine/finite.h"
#include "engine/memory_limit.h"
#include "engine/model_folder.h"
#include "engine/safetensors.h"
#include "engine/size_limits.h"
#include "models/architectures/architecture.h"
#include "models/input_rules.h"
#include "models/sentence_transformers.h"

namespace phasor {

std::unique_ptr<Encoder> Encoder::Load(const std::string& dir, std::optional<PeMode> mode,
                                       Precision precision, RopeAngles angles) {
  return Load(*ModelFolder::Open(dir), mode, precision, angles);
}

std::unique_ptr<Encoder> Encoder::Load(const ModelFolder& folder, std::optional<PeMode> mode,
                                       Precision precision, RopeAngles angles) {
  const std::string& text = folder.config_text();
  const std::string config_path = folder.Path("config.json");
  const std::string model_type = ModelTypeOf(text, config_path);
  if (!model_type.empty()) {  // a checkpoint of another library (models/architectures/)
    TranslatedModel m = FindArchitecture(model_type, config_path).translate(folder, text);
    ReadSentenceDense(folder, m.config, m.weights);  // a sentence-transformers folder's 2_Dense
    CheckModelMemory(m.config, config_path);
    if (mode) m.config.positional.mode = *mode;
    m.config.positional.rope_angles = angles;
    auto encoder = std::make_unique<Encoder>(std::move(m.config), std::move(m.weights), precision);
    encoder->translate_warnings_ = std::move(m.warnings);
    return encoder;
  }
  ModelConfig config = ParseConfig(text, config_path);
  // From the config alone, before the weights file is opened: a small model
  // directory cannot make the encoder build a large PE table (or expect large
  // weights) before failing.
  CheckModelMemory(config, config_path);
  if (mode) config.positional.mode = *mode;
  config.positional.rope_angles = angles;
  Weights weights = LoadCheckpointWeights(folder);
  ReadSentenceDense(folder, config, weights);
  return std::make_unique<Encoder>(std::move(config), std::move(weights), precision);
}

Encoder::Encoder(ModelConfig config, Weights weights, Precision precision)
    : config_(std::move(config)), weights_(std::move(weights)), precision_(precision) {
  ValidateConfig(config_, weights_.source());
  non_finite_warning_ = NonFiniteWarning(weights_);
  const ModelConfig& c = config_;
  const PositionalConfig& pos = c.positional;
  const float* learned = nullptr;
  switch (pos.kind) {
    case PositionalKind::kSinusoidal:
      pe_ = std::make_unique<SinusoidalEncoding>(pos.Sinusoidal(c.d_model));
      break;
    case PositionalKind::kLearned:
      learned = weights_.Require("positional.weight", {pos.max_len, c.d_model});
      break;
    case PositionalKind::kNone:
      break;
    case PositionalKind::kRope:
      // Nothing is added to x; every layer's attention rotates q and k.
      rope_ = std::make_unique<Rope>(pos.RopeOptionsFor(c.d_head()));
      if (!c.parts.local.layers.empty() && c.parts.local.base != 0.0) {
        RopeOptions local = pos.RopeOptionsFor(c.d_head());
        local.base = c.parts.local.base;
        local_rope_ = std::make_unique<Rope>(local);
      }
      break;
  }
  if (c.token_types > 0) FoldTokenTypes(learned);
  embedding_ = std::make_unique<Embedding>(
      weights_, EmbeddingOptions{c.vocab_size, c.d_model, c.scale_embedding, pos.offset}, pe_.get(),
      learned, learned ? pos.max_len : 0);
  if (c.embedding_norm) {
    embedding_norm_ = std::make_unique<LayerNorm>(weights_, "embedding_norm.", c.NormOptions());
  }
  // Every layer has the same shape (one workspace serves them all); only the
  // mask and the rotation of local layers differ.
  const float* distance_bias = nullptr;  // [n_heads, 2·radius + 1]
  if (c.parts.distance_bias_radius > 0) {
    distance_bias =
        weights_.Require("distance_bias.weight", {c.n_heads, 2 * c.parts.distance_bias_radius + 1});
  }
  layer_options_ = c.LayerOptions(0, precision_);
  layer_options_.rotation = rope_.get();  // null unless kind rope
  // Each layer holds its products' weights packed: their float32 copies go as
  // soon as it is built, so the peak holds one layer twice, not the model.
  for (int64_t l = 0; l < c.n_layers; ++l) {
    const std::string prefix = "layers." + std::to_string(l) + ".";
    EncoderLayerOptions lo = c.LayerOptions(l, precision_);
    lo.attention.distance_bias = distance_bias;
    lo.rotation = local_rope_ && c.parts.IsLocal(l) ? local_rope_.get() : rope_.get();
    layers_.push_back(std::make_unique<EncoderLayer>(weights_, prefix, lo));
    for (const std::string& name : EncoderLayer::PackedTensorNames(prefix)) {
      weights_.Release(name);
    }
  }
  if (c.final_norm) {
    final_norm_ = std::make_unique<LayerNorm>(weights_, "norm.", c.NormOptions());
  }
  if (!c.head.empty()) head_ = std::make_unique<DenseHead>(weights_, "head.", c.d_model, c.head);
  if (!c.sentence_dense.empty()) {
    sentence_dense_ =
        std::make_unique<DenseHead>(weights_, "sentence_dense.", c.d_model, c.sentence_dense);
  }
}

void Encoder::FoldTokenTypes(const float*& learned) {
  const ModelConfig& c = config_;
  const int64_t d = c.d_model;
  const float* type0 = weights_.Require("token_type.weight", {c.token_types, d});
  // Other types add their difference from type 0 (a pair's segment 1).
  type_deltas_.assign(type0, type0 + c.token_types * d);
  for (int64_t t = 0; t < c.token_types; ++t) {
    for (int64_t k = 0; k < d; ++k) type_deltas_[t * d + k] -= type0[k];
  }
  if (learned != nullptr) {  // BERT: type 0's row joins each position's row
    typed_table_.assign(learned, learned + c.positional.max_len * d);
    for (int64_t p = 0; p < c.positional.max_len; ++p) {
      for (int64_t k = 0; k < d; ++k) typed_table_[p * d + k] += type0[k];
    }
    learned = typed_table_.data();
    return;
  }
  // Without a position table (rotary): type 0's row joins each token's row.
  weights_.Require("embedding.weight", {c.vocab_size, d});  // as floats
  Tensor table = weights_.Take("embedding.weight");         // [vocab_size, d_model]
  table.bf16.clear();
  for (int64_t v = 0; v < c.vocab_size; ++v) {
    for (int64_t k = 0; k < d; ++k) table.data[v * d + k] += type0[k];
  }
  weights_.Put("embedding.weight", std::move(table));
}

uint64_t Encoder::WorkspaceBytes(int64_t max_tokens) const {
  // The layers' (EncoderLayerWorkspace::Bytes), and per token its length, id
  // and token type slots.
  const uint64_t slots = SaturatingMul(static_cast<uint64_t>(std::max<int64_t>(max_tokens, 0)),
                                       sizeof(int64_t) + 2 * sizeof(int32_t));
  const uint64_t layers = EncoderLayerWorkspace::Bytes(max_tokens, layer_options_);
  return layers > UINT64_MAX - slots ? UINT64_MAX : layers + slots;
}

int64_t Encoder::MaxSequenceLength() const {
  const PositionalConfig& p = config_.positional;
  const bool table = p.kind == PositionalKind::kLearned ||
                     (p.mode == PeMode::kCached &&
                      (p.kind == PositionalKind::kSinusoidal || p.kind == PositionalKind::kRope));
  int64_t limit = table ? p.max_len : kMaxPosition;
  if (config_.max_positions > 0) limit = std::min(limit, config_.max_positions);
  return std::max<int64_t>(limit - p.offset, 0);
}

std::string Encoder::MaxSequenceLengthOf() const {
  const PositionalConfig& p = config_.positional;
  const std::string where = " (max_len " + std::to_string(p.max_len) + ", from position " +
                            std::to_string(p.offset) + ")";
  if (p.kind == PositionalKind::kLearned) return "the model's learned positional table" + where;
  if (config_.max_positions > 0 && MaxSequenceLength() == config_.max_positions - p.offset) {
    return "the model's max_position_embeddings (" + std::to_string(config_.max_positions) +
           ", from position " + std::to_string(p.offset) + ")";
  }
  if (p.mode == PeMode::kCached && p.kind != PositionalKind::kNone) {
    return std::string("the model's cached ") + (p.kind == PositionalKind::kRope ? "RoPE" : "PE") +
           " table" + where;
  }
  return "any model (positions end at 2^40)";
}

std::vector<std::string> Encoder::LoadWarnings() const {
  std::vector<std::string> out = translate_warnings_;
  if (!non_finite_warning_.empty()) out.push_back(non_finite_warning_);
  const auto unused = weights_.UnusedNames();
  if (!unused.empty()) {
    out.push_back(weights_.source() + ": " + std::to_string(unused.size()) +
                  " tensor(s) not used by the model, first '" + unused[0] + "'");
  }
  return out;
}

int64_t Encoder::WeightBytes() const {
  int64_t bytes = 0;
  for (const auto& layer : layers_) bytes += layer->packed_bytes();
  for (const std::string& name : weights_.Names()) {
    bytes += static_cast<int64_t>(weights_.Get(name).data.size() * sizeof(float));
  }
  return bytes;
}

EncoderWorkspace Encoder::MakeWorkspace(int64_t max_tokens) const {
  if (max_tokens < 0) throw Error("negative workspace size " + std::to_string(max_tokens));
  CheckAllocation(WorkspaceBytes(max_tokens),
                  "the encoder workspace for " + std::to_string(max_tokens) + " tokens");
  const auto slots = static_cast<size_t>(std::max<int64_t>(max_tokens, 1));
  return EncoderWorkspace{max_tokens,
                          EncoderLayerWorkspace(max_tokens, layer_options_),
                          std::vector<int64_t>(slots),
                          std::vector<int32_t>(slots),
                          std::vector<int32_t>(),
                          std::vector<int64_t>()};
}

void Encoder::CheckInput(const int32_t* ids, int64_t batch, int64_t seq) const {
  if (batch < 0 || seq < 0) throw Error("negative batch or sequence length");
  if (batch == 0 || seq == 0) return;
  if (!FitsOneCall(batch, seq, config_.d_model, false)) {
    throw Error(TooLargeForOneCall("a batch of " + std::to_string(batch) + " x " +
                                   std::to_string(seq) + " tokens"));
  }
  embedding_->Check(ids, batch, seq);  // ids, and the positions of added PE
  if (rope_) rope_->CheckRange(config_.positional.offset, seq);
}

void Encoder::CheckTokenType(int32_t t, int64_t b, int64_t j) const {
  const int64_t n = std::max<int64_t>(config_.token_types, 1);  // type 0 is every model's
  if (t >= 0 && t < n) return;
  throw Error("token type " + std::to_string(t) + " at sequence " + std::to_string(b) +
              ", position " + std::to_string(j) +
              (config_.token_types > 0
                   ? " is outside the model's token types [0, " + std::to_string(n) + ")"
                   : " is not 0, and the model has no token types"));
}

void Encoder::CheckTokenTypes(const int32_t* types, const Spans& spans) const {
  if (types == nullptr) return;
  for (int64_t b = 0; b < spans.batch; ++b) {
    for (int64_t j = 0; j < spans.length[b]; ++j) CheckTokenType(types[spans.start[b] + j], b, j);
  }
}

void Encoder::AddTokenTypes(const int32_t* types, int64_t rows, float* x) const {
  if (types == nullptr || type_deltas_.empty()) return;
  const int64_t d = config_.d_model;
  for (int64_t r = 0; r < rows; ++r) {
    if (types[r] == 0) continue;
    const float* delta = type_deltas_.data() + static_cast<int64_t>(types[r]) * d;
    float* row = x + r * d;
    for (int64_t k = 0; k < d; ++k) row[k] += delta[k];
  }
}

void Encoder::PackedSpans(const int32_t* ids, const int64_t* offsets, int64_t batch,
                          int64_t* spans) const {
  if (batch < 0) throw Error("negative batch " + std::to_string(batch));
  if (batch > 0 && offsets == nullptr) throw UsageError("null offsets");
  if (batch == 0) return;
  CheckOffsets(offsets, batch);  // nondecreasing from 0: offsets[batch] is the most
  if (!FitsOneCall(1, offsets[batch], config_.d_model, false)) {
    throw Error(TooLargeForOneCall("a batch of " + std::to_string(offsets[batch]) + " tokens"));
  }
  for (int64_t b = 0; b < batch; ++b) {
    spans[b] = offsets[b];
    spans[batch + b] = offsets[b + 1] - offsets[b];
  }
  if (offsets[batch] > 0 && ids == nullptr) throw UsageError("null ids");
  if (rope_) {
    rope_->CheckRange(config_.positional.offset,
                      *std::max_element(spans + batch, spans + 2 * batch));
  }
}

void Encoder::ForwardPacked(const PackedIds& in, EncoderStage stage, float* out,
                            EncoderWorkspace& ws,
                            const std::function<void(int64_t)>& on_layer) const {
  const int32_t* ids = in.ids;
  const int64_t* offsets = in.offsets;
  const int64_t batch = in.batch;
  if (batch > 0 && static_cast<int64_t>(ws.spans.size()) < 2 * batch) ws.spans.resize(2 * batch);
  PackedSpans(ids, offsets, batch, ws.spans.data());  // starts | lengths
  const int64_t rows = batch > 0 ? offsets[batch] : 0;
  if (rows > ws.max_tokens) {
    throw Error("batch of " + std::to_string(rows) + " tokens exceeds the workspace (" +
                std::to_string(ws.max_tokens) + ")");
  }
  const Spans spans{ws.spans.data(), ws.spans.data() + batch, batch};
  CheckTokenTypes(in.types, spans);
  embedding_->ForwardSpans(ids, rows, spans, out);  // checks ids and PE positions first
  AddTokenTypes(in.types, rows, out);
  if (embedding_norm_) embedding_norm_->Forward(out, rows, out);
  if (stage == EncoderStage::kEmbeddings || rows == 0) return;
  RunLayers(out, rows, spans, ws, on_layer);
}

void Encoder::RunLayers(float* x, int64_t rows, const Spans& spans, EncoderWorkspace& ws,
                        const std::function<void(int64_t)>& on_layer) const {
  for (size_t l = 0; l < layers_.size(); ++l) {
    layers_[l]->ForwardSpans(x, rows, spans, x, ws.layer);
    if (on_layer) on_layer(static_cast<int64_t>(l) + 1);
  }
  if (final_norm_) final_norm_->Forward(x, rows, x);
}

void Encoder::Forward(const PaddedIds& in, EncoderStage stage, float* out, EncoderWorkspace& ws,
                      const std::function<void(int64_t)>& on_layer) const {
  const int32_t* ids = in.ids;
  const int64_t batch = in.batch, seq = in.seq;
  const int64_t* lengths = in.lengths;
  CheckInput(ids, batch, seq);
  if (batch * seq > ws.max_tokens) {
    throw Error("batch of " + std::to_string(batch * seq) + " tokens exceeds the workspace (" +
                std::to_string(ws.max_tokens) + ")");
  }
  // Every row's type, padding's too (stage kEmbeddings adds them all).
  for (int64_t r = 0; in.types != nullptr && r < batch * seq; ++r) {
    CheckTokenType(in.types[r], r / seq, r % seq);
  }
  if (stage == EncoderStage::kEmbeddings || batch * seq == 0) {
    embedding_->Forward(ids, batch, seq, out);  // every row, padding too
    AddTokenTypes(in.types, batch * seq, out);
    if (embedding_norm_) embedding_norm_->Forward(out, batch * seq, out);
    return;
  }
  // Effective lengths: given ones less trailing pad ids. [batch]
  int64_t* valid = ws.lengths.data();
  for (int64_t b = 0; b < batch; ++b) {
    int64_t n = lengths ? std::clamp<int64_t>(lengths[b], 0, seq) : seq;
    if (config_.pad_token_id) {
      while (n > 0 && ids[b * seq + n - 1] == *config_.pad_token_id) --n;
    }
    valid[b] = n;
  }
  // The real rows packed at the front of out, encoded there, then moved to
  // their padded places from the last sequence back (a packed row never lies
  // after its padded place), with zeros between.
  if (static_cast<int64_t>(ws.spans.size()) < 2 * batch) ws.spans.resize(2 * batch);
  int64_t* start = ws.spans.data();
  int32_t* packed_ids = ws.ids.data();
  if (in.types != nullptr && ws.types.size() < ws.ids.size()) ws.types.resize(ws.ids.size());
  int32_t* packed_types = in.types != nullptr ? ws.types.data() : nullptr;
  int64_t rows = 0;
  for (int64_t b = 0; b < batch; ++b) {
    start[b] = rows;
    std::copy(ids + b * seq, ids + b * seq + valid[b], packed_ids + rows);
    if (packed_types)
      std::copy(in.types + b * seq, in.types + b * seq + valid[b], packed_types + rows);
    rows += valid[b];
  }
  const Spans spans{start, valid, batch};
  embedding_->ForwardSpans(packed_ids, rows, spans, out);
  AddTokenTypes(packed_types, rows, out);
  if (embedding_norm_) embedding_norm_->Forward(out, rows, out);
  RunLayers(out, rows, spans, ws, on_layer);
  const int64_t d = config_.d_model;
  for (int64_t b = batch - 1; b >= 0; --b) {
    float* to = out + b * seq * d;
    std::memmove(to, out + start[b] * d, static_cast<size_t>(valid[b] * d) * sizeof(float));
    std::fill(to + valid[b] * d, to + seq * d, 0.0f);
  }
}

}  // namespace phasor

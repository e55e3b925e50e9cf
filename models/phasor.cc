#include "models/phasor.h"

#include <algorithm>
#include <limits>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine/memory_limit.h"
#include "engine/model_folder.h"
#include "engine/size_limits.h"
#include "engine/weights.h"
#include "layers/embedding.h"
#include "layers/rope.h"
#include "layers/sinusoidal.h"
#include "models/config.h"
#include "models/corpus.h"
#include "models/encoder.h"
#include "models/heads.h"
#include "models/input_rules.h"
#include "models/random_sequence.h"
#include "tokenizers/tokenizer.h"

namespace phasor {

const char* Version() { return PHASOR_VERSION_STRING; }

// Idle workspaces: a call takes one (or makes one) and gives it back, so
// concurrent calls each have their own and none is allocated per call.
struct EncoderWorkspaceCache {
  std::mutex mutex;
  std::vector<CorpusWorkspace> idle;
  // The folder's tokenizer, read once on first use (Model::tokenizer).
  std::mutex tokenizer_mutex;
  std::shared_ptr<const tokenizers::Tokenizer> tokenizer;
};

namespace {

void CheckBuffer(const void* p, const char* name) {
  if (p == nullptr) throw UsageError(std::string(name) + " is null");
}

}  // namespace

Model::Model(std::unique_ptr<const Encoder> encoder)
    : encoder_(std::move(encoder)), cache_(std::make_unique<EncoderWorkspaceCache>()) {
  ActiveIsa();  // a bad PHASOR_ISA throws here rather than inside a kernel's threads
}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

std::shared_ptr<const tokenizers::Tokenizer> Model::tokenizer() const {
  std::lock_guard<std::mutex> lock(cache_->tokenizer_mutex);
  if (!cache_->tokenizer) {
    if (!folder_) throw Error("the model has no folder, so no tokenizer");
    cache_->tokenizer = tokenizers::Tokenizer::Load(*folder_);
  }
  return cache_->tokenizer;
}

Model Model::Load(const std::string& dir, std::optional<PeMode> pe_mode) {
  LoadOptions options;
  options.pe_mode = pe_mode;
  return Load(dir, options);
}

Model Model::Load(const std::string& dir, const LoadOptions& options) {
  std::shared_ptr<const ModelFolder> folder = ModelFolder::Open(dir);
  Model model(Encoder::Load(*folder, options.pe_mode, options.precision, options.rope_angles));
  model.directory_ = dir;
  model.folder_ = std::move(folder);
  return model;
}

int64_t Model::vocab_size() const { return encoder_->config().vocab_size; }
int64_t Model::max_sequence_length() const { return encoder_->MaxSequenceLength(); }
std::string Model::max_sequence_length_of() const { return encoder_->MaxSequenceLengthOf(); }
int64_t Model::d_model() const { return encoder_->config().d_model; }
int64_t Model::n_layers() const { return encoder_->config().n_layers; }
std::optional<int32_t> Model::pad_token_id() const { return encoder_->config().pad_token_id; }
Precision Model::precision() const { return encoder_->precision(); }
int64_t Model::weight_bytes() const { return encoder_->WeightBytes(); }
const std::string& Model::non_finite_warning() const { return encoder_->non_finite_warning(); }
std::vector<std::string> Model::load_warnings() const { return encoder_->LoadWarnings(); }
int64_t Model::position_offset() const { return encoder_->config().positional.offset; }
int64_t Model::token_types() const { return encoder_->config().token_types; }
std::string Model::config_json() const { return ConfigToJson(encoder_->config()); }

namespace {

// The options' stage: the encoder's input, its final rows, or a head.
EncoderStage StageOfOptions(const EncodeOptions& o) {
  if (o.head != HeadOutput::kNone && (o.embeddings_only || o.pool != Pooling::kNone)) {
    throw UsageError(
        "a head's output (pooler, logits) goes with neither pooling nor the embeddings");
  }
  return StageOf(o.head, o.embeddings_only ? EncoderStage::kEmbeddings : EncoderStage::kFinal);
}

// One row per sequence: pooled or through a head.
bool OneRowEach(const EncodeOptions& o) {
  return o.pool != Pooling::kNone || o.head != HeadOutput::kNone;
}

}  // namespace

int64_t Model::output_dim(const EncodeOptions& options) const {
  const EncoderStage stage = StageOfOptions(options);
  HeadProducts(encoder_->config(), stage, encoder_->weights().source());  // a head it has
  if (options.sentence_dense && options.pool != Pooling::kNone && !encoder_->sentence_dense()) {
    throw Error(encoder_->weights().source() + ": the model has no Dense module");
  }
  return OutputWidth(encoder_->config(), stage,
                     options.sentence_dense && options.pool != Pooling::kNone);
}

namespace {

// The largest idle workspace of a cache, given back when the call ends (also
// by a throw).
struct Lease {
  explicit Lease(EncoderWorkspaceCache& c) : cache(c) {
    const std::lock_guard<std::mutex> lock(cache.mutex);
    auto& idle = cache.idle;
    if (idle.empty()) return;
    const auto largest = std::max_element(
        idle.begin(), idle.end(),
        [](const CorpusWorkspace& a, const CorpusWorkspace& b) { return a.budget < b.budget; });
    ws = std::move(*largest);
    idle.erase(largest);
  }
  ~Lease() {
    try {
      const std::lock_guard<std::mutex> lock(cache.mutex);
      cache.idle.push_back(std::move(ws));
    } catch (...) {  // no room to keep it: it is freed
    }
  }
  EncoderWorkspaceCache& cache;
  CorpusWorkspace ws;
};

CorpusOptions CorpusOptionsOf(const EncodeOptions& o) {
  CorpusOptions c;
  c.batch_tokens = o.batch_tokens;
  c.stage = StageOfOptions(o);
  c.pool = o.pool;
  c.normalize = o.normalize;
  c.sentence_dense = o.sentence_dense;
  c.cancelled = o.cancelled;
  return c;
}

// The input rules (models/input_rules.h) of a call to the model.
SequenceRules RulesFor(const Encoder& encoder, const EncodeOptions& options) {
  SequenceRules rules;
  rules.pad_id = encoder.config().pad_token_id;
  rules.max_length = encoder.MaxSequenceLength();
  rules.max_length_of = encoder.MaxSequenceLengthOf();
  rules.truncate = options.truncate;
  return rules;
}

// Sequence b in messages of the C++ API and the Python module.
const auto kSequenceName = [](int64_t b) { return "sequence " + std::to_string(b); };

// Where each sequence's output goes: pooled, row b of out; else its rows from
// row first_row(b), then zeros up to rows(b) rows.
struct OutputRows {
  float* out;
  FunctionRef<int64_t(int64_t)> first_row;
  FunctionRef<int64_t(int64_t)> rows;
};

// Encodes the sequences (sequence b: ids[real.start[b] ..], real.length[b]
// real tokens) in batches under the options' budget, and writes each to its
// rows as its batch finishes (padding is 0 at every stage: none of it is
// computed).
void EncodeInto(const Encoder& encoder, EncoderWorkspaceCache& cache, const EncodeOptions& options,
                const int32_t* ids, const Spans& real, const OutputRows& to) {
  float* out = to.out;
  const int64_t d = encoder.config().d_model;
  const bool pooled = OneRowEach(options);
  Lease lease(cache);
  const CorpusEncoder corpus(encoder, CorpusOptionsOf(options));
  corpus.Run({ids, options.token_types, real}, lease.ws, [&](const CorpusBatch& r) {
    for (int64_t i = 0; i < r.size; ++i) {
      const int64_t b = r.index[i];
      if (pooled) {
        std::copy(r.rows + i * r.width, r.rows + (i + 1) * r.width, out + b * r.width);
        continue;
      }
      const float* from = r.rows + r.offsets[i] * d;
      const int64_t n = r.offsets[i + 1] - r.offsets[i];
      float* row = out + to.first_row(b) * d;
      std::copy(from, from + n * d, row);
      std::fill(row + n * d, row + to.rows(b) * d, 0.0f);
    }
  });
}

}  // namespace

void Model::Encode(const int32_t* ids, int64_t batch, int64_t seq, float* out,
                   const EncodeOptions& options) const {
  if (batch < 0 || seq < 0) {
    throw UsageError("Encode: negative batch or sequence length (" + std::to_string(batch) + " x " +
                     std::to_string(seq) + ")");
  }
  if (batch == 0 || seq == 0) {
    throw Error("ids hold no token (" + std::to_string(batch) + " x " + std::to_string(seq) +
                "): nothing to encode");
  }
  CheckBuffer(ids, "Encode: ids");
  CheckBuffer(out, "Encode: out");
  if (!FitsOneCall(batch, seq, d_model(), OneRowEach(options))) {
    throw Error(TooLargeForOneCall("a batch of " + std::to_string(batch) + " x " +
                                   std::to_string(seq) + " tokens"));
  }
  std::vector<int64_t> start(static_cast<size_t>(batch)), given(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b) {
    start[b] = b * seq;
    given[b] = options.lengths != nullptr ? options.lengths[b] : seq;
    if (given[b] > seq || given[b] < 0) {
      throw Error("length " + std::to_string(given[b]) + " of sequence " + std::to_string(b) +
                  " is outside [1, " + std::to_string(seq) + "]");
    }
  }
  SequenceRules rules = RulesFor(*encoder_, options);
  rules.warn_trailing_pads = options.lengths != nullptr;
  const RealTokens real = ResolveRealTokens(ids, Spans{start.data(), given.data(), batch, nullptr},
                                            rules, "ids", kSequenceName);
  if (options.warning != nullptr) *options.warning = real.warning;
  const auto first_row = [&](int64_t b) { return b * seq; };
  const auto rows = [&](int64_t) { return seq; };
  EncodeInto(*encoder_, *cache_, options, ids,
             Spans{start.data(), real.lengths.data(), batch, nullptr},
             OutputRows{out, first_row, rows});
}

void Model::EncodePacked(const int32_t* ids, const int64_t* offsets, int64_t batch, float* out,
                         const EncodeOptions& options) const {
  if (batch < 0) throw UsageError("EncodePacked: negative batch " + std::to_string(batch));
  CheckBuffer(offsets, "EncodePacked: offsets");
  if (batch == 0) throw Error("ids hold no sequence: nothing to encode");
  CheckOffsets(offsets, batch);
  const bool pooled = OneRowEach(options);
  std::vector<int64_t> given(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b) given[b] = offsets[b + 1] - offsets[b];
  const int64_t total = offsets[batch];
  if (!FitsOneCall(1, total, d_model(), pooled)) {
    throw Error(TooLargeForOneCall("a batch of " + std::to_string(total) + " tokens"));
  }
  CheckBuffer(ids, "EncodePacked: ids");
  CheckBuffer(out, "EncodePacked: out");
  SequenceRules rules = RulesFor(*encoder_, options);
  rules.padded_output = !pooled;
  const RealTokens real = ResolveRealTokens(ids, Spans{offsets, given.data(), batch, nullptr},
                                            rules, "ids", kSequenceName);
  if (options.warning != nullptr) *options.warning = real.warning;
  const auto first_row = [&](int64_t b) { return offsets[b]; };
  const auto rows = [&](int64_t b) { return given[b]; };
  EncodeInto(*encoder_, *cache_, options, ids, Spans{offsets, real.lengths.data(), batch, nullptr},
             OutputRows{out, first_row, rows});
}

PositionalEncoding::PositionalEncoding(const PeOptions& options)
    : options_(options),
      pe_(std::make_unique<const SinusoidalEncoding>(
          SinusoidalOptions{options.d_model, options.base, options.layout, options.denominator,
                            options.max_len, options.mode})) {
  ActiveIsa();  // a bad PHASOR_ISA throws here rather than inside a kernel's threads
}
PositionalEncoding::PositionalEncoding(PositionalEncoding&&) noexcept = default;
PositionalEncoding& PositionalEncoding::operator=(PositionalEncoding&&) noexcept = default;
PositionalEncoding::~PositionalEncoding() = default;

void PositionalEncoding::Fill(int64_t first_pos, int64_t n, float* out) const {
  if (n < 0) throw UsageError("PositionalEncoding: negative row count " + std::to_string(n));
  if (n == 0) return;
  CheckBuffer(out, "PositionalEncoding::Fill: out");
  pe_->Fill(first_pos, n, out);  // checks the range before any thread starts
}

void PositionalEncoding::Add(int64_t first_pos, int64_t n, float* x) const {
  if (n < 0) throw UsageError("PositionalEncoding: negative row count " + std::to_string(n));
  if (n == 0) return;
  CheckBuffer(x, "PositionalEncoding::Add: x");
  pe_->CheckRange(first_pos, n);  // throw here, not inside a parallel region
  const int64_t d = pe_->d_model();
  RotationRows::ForEachTask(1, first_pos, n, d, [&](int64_t, int64_t p0, int64_t p1) {
    constexpr int64_t kPiece = RotationRows::kBlock * 8;  // rows made at a time
    thread_local AlignedFloats rows;                      // [kPiece, d_model]
    if (static_cast<int64_t>(rows.size()) < kPiece * d) rows.resize(kPiece * d);
    for (int64_t p = p0; p < p1; p += kPiece) {
      const int64_t m = std::min(kPiece, p1 - p);
      pe_->FillSerial(p, m, nullptr, rows.data());
      float* y = x + (p - first_pos) * d;
      for (int64_t k = 0; k < m * d; ++k) y[k] += rows[static_cast<size_t>(k)];
    }
  });
}

RotaryEncoding::RotaryEncoding(const RopeOptions& options)
    : rope_(std::make_unique<const Rope>(options)) {}
RotaryEncoding::RotaryEncoding(RotaryEncoding&&) noexcept = default;
RotaryEncoding& RotaryEncoding::operator=(RotaryEncoding&&) noexcept = default;
RotaryEncoding::~RotaryEncoding() = default;

const RopeOptions& RotaryEncoding::options() const { return rope_->options(); }
int64_t RotaryEncoding::rotary_dim() const { return rope_->rotary_dim(); }

void RotaryEncoding::FillTable(int64_t first_pos, int64_t n, float* out) const {
  if (n < 0) throw UsageError("RotaryEncoding::FillTable: negative row count " + std::to_string(n));
  if (n == 0) return;
  CheckBuffer(out, "RotaryEncoding::FillTable: out");
  rope_->CheckRange(first_pos, n);
  rope_->FillTable(first_pos, n, out);
}

void RotaryEncoding::Apply(float* qkv, int64_t batch, int64_t seq, int64_t d_model,
                           int64_t n_heads) const {
  if (batch < 0 || seq < 0) throw UsageError("RotaryEncoding::Apply: negative batch or seq");
  if (batch * seq == 0) return;
  CheckBuffer(qkv, "RotaryEncoding::Apply: qkv");
  if (n_heads <= 0 || d_model % n_heads != 0 || d_model / n_heads != rope_->options().d_head) {
    throw UsageError("RotaryEncoding::Apply: d_model " + std::to_string(d_model) + " / n_heads " +
                     std::to_string(n_heads) + " is not the options' d_head " +
                     std::to_string(rope_->options().d_head));
  }
  rope_->Apply(qkv, batch, seq, d_model, n_heads);
}

RopeScaling ParseRopeScaling(const std::string& json_text) {
  return ParseRopeScaling(json_text, "scaling");
}

// The token table and the PE of a RandomSequence, built once.
struct RandomSequence::State {
  explicit State(const RandomSequenceOptions& o)
      : weights("random sequence"),
        pe(SinusoidalOptions{o.d_model, 10000.0, PeLayout::kInterleaved, PeDenominator::kDModel,
                             o.pe_mode == PeMode::kOnTheFly ? 0 : o.max_len, o.pe_mode}) {
    AlignedFloats table(static_cast<size_t>(o.vocab * o.d_model));  // [vocab, d_model]
    FillRandomTokenTable(o.vocab, o.d_model, table.data());
    weights.AddAligned("embedding.weight", {o.vocab, o.d_model}, std::move(table));
    embedding = std::make_unique<const Embedding>(
        weights, EmbeddingOptions{o.vocab, o.d_model, false, 0}, &pe);
  }
  Weights weights;
  SinusoidalEncoding pe;
  std::unique_ptr<const Embedding> embedding;  // reads weights and pe
};

namespace {

void CheckInRange(const char* name, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi) {
    throw UsageError(std::string("RandomSequence: ") + name + " must be in [" + std::to_string(lo) +
                     ", " + std::to_string(hi) + "], got " + std::to_string(value));
  }
}

RandomSequenceOptions CheckedRandomSequenceOptions(const RandomSequenceOptions& o) {
  constexpr int64_t kMaxTableValues = int64_t{1} << 30;  // of the token table, the PE table
  CheckInRange("d_model", o.d_model, 2, 65536);
  if (o.d_model % 2 != 0) {
    throw UsageError("RandomSequence: d_model must be even, got " + std::to_string(o.d_model));
  }
  CheckInRange("vocab", o.vocab, 1, kMaxTableValues / o.d_model);
  CheckInRange("max_len", o.max_len, 0,
               o.pe_mode == PeMode::kOnTheFly ? std::numeric_limits<int64_t>::max()
                                              : kMaxTableValues / o.d_model);
  const int64_t table_rows = o.pe_mode == PeMode::kOnTheFly ? 0 : o.max_len;
  CheckAllocation(static_cast<uint64_t>((o.vocab + table_rows) * o.d_model) * sizeof(float),
                  "RandomSequence: the token table and the PE table");
  return o;
}

}  // namespace

RandomSequence::RandomSequence(const RandomSequenceOptions& options)
    : options_(CheckedRandomSequenceOptions(options)),
      state_(std::make_unique<const State>(options_)) {}
RandomSequence::RandomSequence(RandomSequence&&) noexcept = default;
RandomSequence& RandomSequence::operator=(RandomSequence&&) noexcept = default;
RandomSequence::~RandomSequence() = default;

void RandomSequence::TokenIds(int64_t first, int64_t n, int32_t* ids) const {
  if (first < 0 || n < 0) {
    throw UsageError("RandomSequence: negative first token or count (" + std::to_string(first) +
                     ", " + std::to_string(n) + ")");
  }
  if (n == 0) return;
  CheckBuffer(ids, "RandomSequence::TokenIds: ids");
  for (int64_t j = 0; j < n; ++j) ids[j] = RandomTokenId(first + j, options_.vocab);
}

void RandomSequence::Embed(int64_t first, int64_t n, float* out) const {
  std::vector<int32_t> ids(static_cast<size_t>(std::max<int64_t>(n, 0)));
  TokenIds(first, n, ids.data());
  if (n == 0) return;
  CheckBuffer(out, "RandomSequence::Embed: out");
  state_->embedding->ForwardRange(ids.data(), n, first, out);
}

}  // namespace phasor

// phasor's public C++ API: load a model directory and encode batches of token
// ids; make sinusoidal positional-encoding (PE) rows for any position range, in
// any layout, denominator and mode.
//
// Include it as "phasor/models/phasor.h" from an installed phasor
// (find_package(phasor) + phasor::phasor, or pkg-config phasor), or as
// "models/phasor.h" inside phasor's own tree.
//
// Stability: this header and the ones it includes (engine/cpu.h,
// engine/error.h, engine/parallel.h, engine/version.h, layers/positional.h) are
// the public API. They include no Eigen and depend on no compiler flag, so a
// program may be built with any flags against the library (which picks its
// kernels for the CPU at run time, engine/cpu.h; or was built with
// -march=native under PHASOR_NATIVE=ON). The other installed headers are
// internals: they may change in any release, and code that includes them must
// be compiled with the library's own flags (Eigen's alignment, hence its
// allocations, depends on them).
//
// Layout: every buffer is float32, row-major [tokens, features], owned by the
// caller; rows are d_model values.
//
// Errors: a call that rejects its input throws phasor::Error (engine/error.h), a
// std::runtime_error whose what() is the one-line message the CLI prints after
// "phasor: error: ", naming the file, key, tensor, token or position. A bad
// argument (null buffer, negative size) throws its subclass phasor::UsageError.
// std::bad_alloc if memory runs out. After a throw the object is still usable;
// an output buffer may be partly written.
//
// Threads: calls split their rows over OpenMP threads (SetNumThreads below, or
// OMP_NUM_THREADS). Every method is const and may be called from many threads
// at once.
//
// Example (tests/install/consumer/main.cc, built and run by the install test):
//   phasor::Model model = phasor::Model::Load("toy");  // phasor make-toy --out toy
//   std::vector<int32_t> ids = {3, 14, 15};            // [batch 1, seq 3]
//   std::vector<float> out(ids.size() * model.d_model());
//   model.Encode(ids.data(), 1, 3, out.data());       // out: [1, 3, d_model]
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/cpu.h"         // SetIsa(name), ActiveIsa(), AvailableIsas()
#include "engine/error.h"       // Error, UsageError
#include "engine/parallel.h"    // SetNumThreads(n), NumThreads()
#include "engine/version.h"     // PHASOR_VERSION_STRING, PHASOR_VERSION_MAJOR, ...
#include "layers/positional.h"  // PeMode, PeLayout, PeDenominator, Parse*/ToString
#include "layers/precision.h"   // Precision, ParsePrecision, ToString
#include "layers/rope.h"        // RopeOptions, RopeLayout, RopeScaling, RopeScalingType
#include "models/pooling.h"     // Pooling, ParsePooling, ToString; HeadOutput

namespace phasor {

// The version of the linked library, e.g. "0.1.0". PHASOR_VERSION_STRING is the
// version of the headers; the two differ only if they were mixed up.
const char* Version();

class Encoder;      // models/encoder.h
class ModelFolder;  // engine/model_folder.h
namespace tokenizers {
class Tokenizer;  // tokenizers/tokenizer.h
}
class SinusoidalEncoding;      // layers/sinusoidal.h
struct EncoderWorkspaceCache;  // models/phasor.cc

// Per-call options of Model::Encode and Model::EncodePacked.
struct EncodeOptions {
  // Encode only: [batch] tokens per sequence, in [1, seq]; the rest of each
  // row is padding, masked out of attention and 0 in the output. Null: every
  // sequence has seq tokens. With a pad_token_id in the config, trailing pad
  // ids are padding too (models/input_rules.h).
  const int64_t* lengths = nullptr;
  // Token types (BERT's segments: 0 for a pair's first text, 1 for its
  // second), laid out as ids: [batch, seq] for Encode, [offsets[batch]] for
  // EncodePacked. Each in [0, the model's token types), or 0 for a model
  // without them (Error naming sequence and position). Null: every token of
  // type 0.
  const int32_t* token_types = nullptr;
  // true: write the encoder's input x = embedding (× √d_model if
  // scale_embedding) + PE instead of the final hidden states.
  bool embeddings_only = false;
  // kNone: every row. Else one row per sequence (models/pooling.h) over its
  // real tokens, optionally of unit L2 norm: out is then [batch, d_model].
  Pooling pool = Pooling::kNone;
  bool normalize = false;
  // With pool: the model's sentence-transformers Dense modules (a folder's
  // 2_Dense, in modules.json) applied after the pooling and before normalize;
  // out is then [batch, output_dim(options)]. Error if the model has none.
  bool sentence_dense = false;
  // kPooler or kLogits: one row per sequence, the model's head on its first
  // token's final row, or on the mean of its rows where the model's head
  // pools so (BERT's pooler output; a *ForSequenceClassification
  // checkpoint's logits): out is [batch, output_dim(options)]. Needs pool
  // kNone and not embeddings_only (UsageError); Error naming the stage and the
  // missing tensor if the model has no such head.
  HeadOutput head = HeadOutput::kNone;
  // Real tokens encoded at once at most (0: models/corpus.h's default, or the
  // longest sequence if longer); memory is bounded by it, not by the call.
  int64_t batch_tokens = 0;
  // If set, receives the warning about trailing pad ids inside the given
  // lengths (models/input_rules.h), or is cleared.
  std::string* warning = nullptr;
  // A sequence longer than the model's positions (max_sequence_length()) is an
  // error naming it, unless truncate: then its first max_sequence_length()
  // tokens are encoded (rows past them 0, one warning), as a tokenizer's
  // truncation would cut it.
  bool truncate = false;
  // Cancellation: if set, asked on the calling thread after every layer of
  // every batch (a few ms of work apart at most shapes); once it returns true
  // the call stops and throws phasor::Cancelled, out partly written, the model
  // as usable as before. A flag another thread sets (a server whose client
  // went away) is read as
  //   std::atomic<bool> stop{false};
  //   options.cancelled = [&stop] { return stop.load(); };
  std::function<bool()> cancelled;
};

// The options of Model::Load.
struct LoadOptions {
  // If set, replaces the config's positional mode.
  std::optional<PeMode> pe_mode;
  // The number format of the weight products (layers/precision.h): fp32
  // matches PyTorch to 1e-4; bf16 and int8 trade a little accuracy (output
  // rows at cosine >= 0.9995 and 0.999 of float32's) for speed and memory.
  Precision precision = Precision::kFp32;
  // How rotary layers form their angles: exact (default), or as the models'
  // own float32 code (layers/rope.h RopeAngles; README "Angles against the
  // models' own libraries"). No effect on a model without rotary positions.
  RopeAngles rope_angles = RopeAngles::kExact;
};

// An encoder model (README "Model directory"): embedding + positional encoding,
// n_layers layers equivalent to PyTorch's nn.TransformerEncoderLayer in eval
// mode, and the optional final LayerNorm.
class Model {
 public:
  // Reads dir/config.json and dir/model.safetensors. pe_mode, if set, replaces
  // the config's positional mode. Throws Error naming the file, key or tensor
  // for anything missing, malformed or misshapen.
  static Model Load(const std::string& dir, std::optional<PeMode> pe_mode = std::nullopt);
  static Model Load(const std::string& dir, const LoadOptions& options);

  // Movable, not copyable; a moved-from Model may only be assigned or destroyed.
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  ~Model();

  // The directory it was loaded from.
  const std::string& directory() const { return directory_; }
  // That folder as opened once at Load (engine/model_folder.h: its JSON files,
  // prompts, tokenizer files); every later question about the folder is
  // answered from it, never by reading the folder again.
  const ModelFolder* folder() const { return folder_.get(); }
  int64_t vocab_size() const;
  // The most tokens a sequence can hold: the positions of a learned (or
  // cached) table from its first position, e.g. 512 for BERT, 512 for RoBERTa
  // (514 rows from position 2); 2^40 less the offset without a table.
  int64_t max_sequence_length() const;
  // Whose positions those are, as the length error names them: "the model's
  // learned positional table (max_len 514, from position 2)".
  std::string max_sequence_length_of() const;
  int64_t d_model() const;
  int64_t n_layers() const;
  std::optional<int32_t> pad_token_id() const;
  int64_t position_offset() const;
  // Token types the model has (BERT's segments; type_vocab_size), 0 if none.
  int64_t token_types() const;
  Precision precision() const;
  // Bytes the weights take in memory: the products' packed weights at their
  // precision, and the float32 tensors (embedding, norms, biases).
  int64_t weight_bytes() const;
  // A warning about NaN or Inf in the weights as loaded (the line the CLI
  // prints after "phasor: warning: "); empty when all are finite.
  const std::string& non_finite_warning() const;
  // Every warning of the load, one line each: NaN or Inf in the weights,
  // tensors the model does not use (as the CLI prints them).
  std::vector<std::string> load_warnings() const;
  // The whole configuration, as config.json text (every key, defaults filled in).
  std::string config_json() const;
  // The values of each output row under options: d_model; the pooler's width
  // or num_labels (options.head); the last Dense module's out_features
  // (options.sentence_dense with pooling). Throws as Encode for a head the
  // model lacks.
  int64_t output_dim(const EncodeOptions& options = {}) const;
  // The model folder's own tokenizer (tokenizer.json, vocab.txt, ...: see
  // tokenizers/tokenizer.h), read on first use and kept. Throws Error
  // naming the folder if it holds none.
  std::shared_ptr<const tokenizers::Tokenizer> tokenizer() const;

  // Runs the encoder on a batch of sequences.
  //   ids: [batch, seq] row-major token ids, in [0, vocab_size)
  //   out: [batch, seq, d_model] row-major, all batch·seq·d_model values written
  // Token j of every sequence sits at position position_offset() + j.
  // Only real tokens are computed, in batches of at most options.batch_tokens
  // (models/corpus.h). Throws UsageError for a negative batch or seq, or a
  // null ids or out; Error for no sequence (batch or seq 0), a sequence with
  // no real token (models/input_rules.h), an id outside the vocabulary (naming
  // the sequence and position), a position the PE cannot produce (mode cached,
  // past max_len), or a batch of more than 2^31 output values.
  // Activations are kept between calls: one workspace for each call that runs
  // at the same time as others (as many as ever ran at once), each grown to
  // the largest budget it served, so threads sharing a model allocate nothing
  // once warm.
  void Encode(const int32_t* ids, int64_t batch, int64_t seq, float* out,
              const EncodeOptions& options = {}) const;

  // Sequences of any lengths packed back to back (FlashAttention's
  // cu_seqlens): sequence b is ids[offsets[b] .. offsets[b + 1]), offsets:
  // [batch + 1] from 0, increasing. out: [offsets[batch], d_model], row i the
  // output of id i (0 for trailing pad ids), or [batch, d_model] with pooling.
  // A ragged batch costs its real tokens only, and a sequence's rows are the
  // same bits as when it is encoded alone. Throws as Encode.
  void EncodePacked(const int32_t* ids, const int64_t* offsets, int64_t batch, float* out,
                    const EncodeOptions& options = {}) const;

 private:
  explicit Model(std::unique_ptr<const Encoder> encoder);
  std::unique_ptr<const Encoder> encoder_;
  std::unique_ptr<EncoderWorkspaceCache> cache_;
  std::string directory_;
  std::shared_ptr<const ModelFolder> folder_;
};

// The options of a sinusoidal positional encoding (README "Sinusoidal
// positional encoding"); the defaults are those of Attention Is All You Need.
struct PeOptions {
  int64_t d_model = 512;  // even, >= 2
  double base = 10000.0;  // finite, > 1
  PeLayout layout = PeLayout::kInterleaved;
  PeDenominator denominator = PeDenominator::kDModel;
  int64_t max_len = 4096;  // rows of the table (modes kCached and kAuto)
  PeMode mode = PeMode::kAuto;
};

// Sinusoidal positional encoding:
// PE[p, 2i] = sin(p·freq_i), PE[p, 2i+1] = cos(p·freq_i) in the default
// interleaved layout, every value within 2e-6 of the exact formula for every
// position accepted (below 2^40). options.mode picks where rows come from:
// kCached (a table of max_len rows built here; a position past it is an
// error), kOnTheFly (no table), kAuto (the table inside max_len, computed
// beyond it).
class PositionalEncoding {
 public:
  // Builds the frequencies and, in modes kCached and kAuto, the table of
  // options.max_len rows. Throws Error for an odd or too small d_model, a base
  // that is not finite and > 1, a negative max_len, or a table too large.
  explicit PositionalEncoding(const PeOptions& options = {});

  // Movable, not copyable; a moved-from object may only be assigned or destroyed.
  PositionalEncoding(PositionalEncoding&&) noexcept;
  PositionalEncoding& operator=(PositionalEncoding&&) noexcept;
  ~PositionalEncoding();

  const PeOptions& options() const { return options_; }
  int64_t d_model() const { return options_.d_model; }

  // out: [n, d_model] = the PE rows of positions first_pos .. first_pos + n - 1.
  // Throws UsageError for n < 0 or a null out; Error for a negative position,
  // one past 2^40, or (mode kCached) one at or past max_len. n 0: no-op.
  void Fill(int64_t first_pos, int64_t n, float* out) const;

  // x: [n, d_model]; adds PE(first_pos + j) to row j in place (as the encoder
  // adds it to token embeddings). Errors as Fill, checked before x is touched.
  void Add(int64_t first_pos, int64_t n, float* x) const;

 private:
  PeOptions options_;
  std::unique_ptr<const SinusoidalEncoding> pe_;
};

// Rotary position embedding applied to a q/k block, as the encoder applies it
// inside attention when config.json says "kind": "rope". Thread-safe.
//
//   phasor::RopeOptions o;           // d_head, rotary_dim, base, layout, offset,
//   o.d_head = 64;                   // max_len, mode, scaling (layers/rope.h)
//   phasor::RotaryEncoding rope(o);
//   rope.Apply(qkv, batch, seq, d_model, n_heads);
class RotaryEncoding {
 public:
  // Throws Error naming the key for bad options (odd rotary_dim, factor <= 0, ...).
  explicit RotaryEncoding(const RopeOptions& options);
  RotaryEncoding(RotaryEncoding&&) noexcept;
  RotaryEncoding& operator=(RotaryEncoding&&) noexcept;
  ~RotaryEncoding();

  const RopeOptions& options() const;
  int64_t rotary_dim() const;  // r: options().rotary_dim, or d_head if that is 0

  // out: [n, rotary_dim()]: the rows of `phasor pe --kind rope` for positions
  // first_pos .. first_pos + n - 1: the rotation applied to a vector whose
  // pairs are all (1, 0), in the layout's order (cos θ_i at the pair's first
  // slot, sin θ_i at its second, × the attention factor). Throws UsageError for
  // n < 0 or a null out; Error for a position the tables cannot produce.
  void FillTable(int64_t first_pos, int64_t n, float* out) const;

  // qkv: [batch·seq, 3·d_model] row-major, each row q | k | v with the heads'
  // d_head = d_model / n_heads columns side by side; token j of every sequence
  // sits at position options().offset + j. Rotates the first rotary_dim columns
  // of every head of q and k in place; v is untouched. Throws UsageError for a
  // null qkv, negative sizes or d_model != n_heads·d_head; Error for a position
  // the tables cannot produce (mode kCached past max_len).
  void Apply(float* qkv, int64_t batch, int64_t seq, int64_t d_model, int64_t n_heads) const;

 private:
  std::unique_ptr<const Rope> rope_;
};

// The "scaling" object of a RoPE config (README "Rotary position embedding"),
// given as JSON text, e.g. {"type": "linear", "factor": 2}. Throws Error naming
// the key for invalid JSON, an unknown type or key, a key the type does not
// use, a missing factor or a value of the wrong type; the values' ranges are
// checked by RotaryEncoding.
RopeScaling ParseRopeScaling(const std::string& json_text);

// The sequence `phasor embed` embeds, one piece at a time: token j is
// RandomTokenId(j, vocab), a fixed pseudo-random function of j; the token table
// has fixed pseudo-random rows (models/random_sequence.h); each row gets the
// default sinusoidal PE of its position (base 10000, interleaved, denominator
// d_model) in pe_mode. Pieces computed apart, in any order, give the same bits
// as one pass over the whole sequence.
struct RandomSequenceOptions {
  int64_t d_model = 512;  // even, 2 .. 65536
  int64_t vocab = 32000;  // 1 .. 2^31 - 1; vocab × d_model at most 2^30
  PeMode pe_mode = PeMode::kOnTheFly;
  int64_t max_len = 4096;  // rows of the PE table (modes cached and auto)
};

class RandomSequence {
 public:
  // Builds the token table and the PE (its table in modes cached and auto).
  // Throws UsageError for sizes out of range.
  explicit RandomSequence(const RandomSequenceOptions& options = {});
  RandomSequence(RandomSequence&&) noexcept;
  RandomSequence& operator=(RandomSequence&&) noexcept;
  ~RandomSequence();

  const RandomSequenceOptions& options() const { return options_; }

  // ids: [n] = the ids of tokens first .. first + n - 1. UsageError for first
  // or n < 0, or a null ids.
  void TokenIds(int64_t first, int64_t n, int32_t* ids) const;

  // out: [n, d_model] = the embedded rows (token row + PE) of tokens first ..
  // first + n - 1, token j at position j. UsageError as TokenIds; Error for a
  // position the PE cannot produce (mode cached, at or past max_len).
  void Embed(int64_t first, int64_t n, float* out) const;

 private:
  struct State;  // models/phasor.cc
  RandomSequenceOptions options_;
  std::unique_ptr<const State> state_;
};

}  // namespace phasor

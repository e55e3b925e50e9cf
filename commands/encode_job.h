// `phasor encode` as a library call: checks what is asked, loads the model and
// the token ids, runs the encoder over them in batches under a token budget,
// writes the outputs and reports what it did.
//
//   EncodeRequest r;
//   r.tokens = "3 14 15";
//   r.output = "out.npy";
//   EncodeJob job(r, events);          // checks, loads; UsageError / Error
//   const EncodeResult res = job.Run();  // runs r.repeat times, writes out.npy
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands/job_events.h"
#include "commands/tokenize_job.h"
#include "engine/model_folder.h"
#include "models/config.h"
#include "models/encoder.h"
#include "models/input_rules.h"
#include "models/pooling.h"
#include "models/tokens.h"

namespace phasor {

// What is asked, as the command line says it (each field is its option).
struct EncodeRequest {
  std::string model;                       // model directory; "": the built-in toy model
  std::optional<std::string> tokens;       // one sequence of ids, "3 14 15"
  std::optional<std::string> tokens_file;  // one sequence a line
  std::optional<std::string> text_file;    // one text a line, the model's tokenizer
  TextRequest text;                        // how text_file is read (its truncate unused:
                                           // truncate below says it); "-": standard input
  std::string output;                      // .npy (or .csv for one row a line); "": none
  std::string offsets;                     // packed: the offsets .npy ("": beside output)
  std::string layout = "padded";           // or "packed"
  std::string stage = "final";             // or "embeddings", "pooler", "logits"
  std::string pe_mode;                     // "": the config's
  std::string precision = "fp32";
  std::string rope_angles = "exact";  // or "library" (layers/rope.h RopeAngles)
  // none, mean, cls, max, last, mean_sqrt_len or model; "": the folder's
  // (model for a sentence-transformers folder at stage final, layout padded;
  // otherwise none)
  std::string pool;
  bool normalize = false;
  // A longer line keeps its first tokens. Text: cut by its tokenizer (its
  // special tokens kept) at the length rule's limit (models/length_rule.h);
  // nullopt: the folder's default (on for a sentence-transformers folder).
  // Token ids: the model's positions; nullopt: off.
  std::optional<bool> truncate;
  int64_t batch_tokens = 0;  // 0: chosen (CorpusOptions)
  int64_t threads = 0;       // 0: OMP_NUM_THREADS if set, else all cores
  int64_t repeat = 1;
};

// The request's choices, checked and parsed.
struct EncodeChoices {
  // --model opened once (engine/model_folder.h); null for the built-in toy.
  std::shared_ptr<const ModelFolder> folder;
  std::string pool_option;  // request.pool, or the folder's default
  std::optional<PeMode> pe_mode;
  Precision precision = Precision::kFp32;
  RopeAngles rope_angles = RopeAngles::kExact;
  Pooling pool = Pooling::kNone;
  bool normalize = false;       // --normalize, or the folder's (--pool model)
  bool sentence_dense = false;  // --pool model: the folder's Dense modules
  EncoderStage stage = EncoderStage::kFinal;
  bool packed = false;       // layout "packed"
  std::string offsets_path;  // packed with an output: where the offsets go
};

// The stage named by text, "final", "embeddings", "pooler" or "logits";
// otherwise UsageError "OPTION must be 'embeddings', 'final', 'pooler' or
// 'logits', got 'x'" (OPTION: "--stage", "stage").
EncoderStage ParseStage(const std::string& option, const std::string& text);

// Checks every option of r and the output paths (format, writable) before
// anything is loaded. Throws UsageError (or Error for a path that cannot be
// written) with the CLI's message.
EncodeChoices CheckEncodeRequest(const EncodeRequest& r);

// What a run did: what the CLI prints and its --json holds.
struct EncodeResult {
  std::string model_name;  // the directory, or "built-in toy"
  ModelConfig config;      // as loaded (its positional mode the one used)
  Precision precision = Precision::kFp32;
  int64_t weight_bytes = 0;
  int64_t batch = 0;         // sequences
  int64_t seq_len = 0;       // the longest, as given
  int64_t real_tokens = 0;   // encoded in all (trailing pad ids dropped)
  int64_t first_length = 0;  // real tokens of sequence 0
  int64_t batch_tokens = 0;  // the budget used
  int64_t batches = 0;
  Pooling pool = Pooling::kNone;
  std::string pool_option;      // as given or defaulted: "model", "mean", "none", ...
  bool normalize = false;       // applied (--normalize, or the folder's Normalize)
  bool dense = false;           // the folder's Dense modules applied
  bool truncate = false;        // a longer line cut (else refused)
  int64_t max_length = 0;       // the most tokens a line may hold (0: no bound known)
  std::string max_length_of;    // where that limit comes from
  std::string layout;           // "padded", "packed" or "pooled"
  std::vector<int64_t> shape;   // of the output array
  double seconds = 0;           // median of the runs
  double tokens_per_s = 0;      // real tokens per second
  double tokenize_seconds = 0;  // --text-file: tokenizing every line (once)
  // Sequence 0's first and last output rows [2, d_model] (pooled: its row, twice).
  std::vector<float> first_rows;
};

class EncodeJob {
 public:
  // Checks the request (CheckEncodeRequest), sets the thread count, loads the
  // model and the ids and settles each sequence's real tokens. Warnings
  // (the model's, trailing pad ids) go to events as they arise.
  EncodeJob(const EncodeRequest& request, const JobEvents& events);
  ~EncodeJob();

  // Units of work Run reports through events.progress: real tokens × repeat.
  int64_t total_work() const;

  // Encodes every sequence request.repeat times, writing the output (and the
  // packed offsets) from the first run, batch by batch; events.wrote names
  // each file once it is complete.
  EncodeResult Run();

 private:
  struct Output;
  void RunOnce(int64_t run, Output& out, EncodeResult& result) const;
  void Commit(Output& out) const;
  void WriteCsv(const Output& out) const;
  // --text-file: every line's ids from the model's tokenizer.
  TokenBatch TokenizeTextFile(const ModelConfig& c);

  EncodeRequest request_;
  EncodeChoices choices_;
  JobEvents events_;
  std::unique_ptr<Encoder> encoder_;
  std::string model_name_;
  TokenBatch tokens_;
  RealTokens real_;
  SequenceRules rules_;  // the length limit applied, and truncation
  double tokenize_seconds_ = 0;
};

}  // namespace phasor

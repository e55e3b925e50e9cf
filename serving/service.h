// `phasor serve`'s work apart from HTTP: the model, its tokenizer, the
// batcher and the metrics, and what every route needs of them: a request's
// input checked and turned into sequences, and those sequences encoded.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands/job_events.h"
#include "models/length_rule.h"
#include "models/phasor.h"
#include "serving/api.h"
#include "serving/batcher.h"
#include "serving/metrics.h"

namespace phasor::serving {

// The command line of `phasor serve`, each field its option.
struct ServeOptions {
  std::string model;  // the model folder
  std::string host = "127.0.0.1";
  int port = 8080;      // 0: a free port, printed when listening
  int64_t threads = 0;  // 0: OMP_NUM_THREADS if set, else all cores
  int64_t max_batch_tokens = 16384;
  int64_t max_concurrent_requests = 128;
  int64_t max_client_batch_size = 2048;  // OpenAI's own limit of inputs a request
  int64_t max_input_tokens = 0;          // 0: the model's (and its tokenizer's) length
  int64_t payload_limit = 2000000;       // bytes of a request body
  // Texts longer than the model takes are cut (true) or refused (false);
  // nullopt: the folder's rule (models/length_rule.h: on for a
  // sentence-transformers folder). A request's "truncate" overrides it.
  std::optional<bool> auto_truncate;
  std::string pool;        // "": the folder's (sentence-transformers), else mean
  bool normalize = false;  // /v1/embeddings rows of unit length
  std::string precision = "fp32";
  std::string rope_angles = "exact";  // or "library" (layers/rope.h RopeAngles)
  bool quiet = false;                 // no line per request
};

// How a request's texts are read.
struct TextChoices {
  // Cut to max_input_tokens instead of refusing; nullopt: the server's
  // (--auto-truncate, or the folder's rule).
  std::optional<bool> truncate;
  std::string prompt_name;  // a prompt of config_sentence_transformers.json
  bool add_special_tokens = true;
  // Each token's span in bytes of its text (Sequences::spans; /tokenize).
  bool offsets = false;
};

class Service {
 public:
  // Checks the options, loads the model (and its tokenizer, if the folder has
  // one) and starts the batcher. Throws UsageError / Error with the CLI's
  // messages; warnings go to events.
  Service(const ServeOptions& options, const JobEvents& events);
  ~Service();

  const ServeOptions& options() const { return options_; }
  const Model& model() const { return *model_; }
  // Null when the folder has no tokenizer: only token ids are read then.
  const tokenizers::Tokenizer* tokenizer() const { return tokenizer_.get(); }
  Metrics& metrics() { return metrics_; }
  Batcher& batcher() { return *batcher_; }
  // The tokens a sequence may hold.
  int64_t max_input_tokens() const { return max_input_tokens_; }
  // What --pool resolved to ("cls", "mean", ...), and whether the folder's
  // Normalize module asks for unit rows.
  const std::string& pooling() const { return pooling_name_; }
  bool folder_normalizes() const { return folder_normalizes_; }
  // Whether the model has a classification head (/rerank, /predict).
  bool has_classifier() const { return has_classifier_; }
  // Whether it answers /embed and /v1/embeddings: a model without a
  // classification head, or a sentence-transformers folder.
  bool embeds() const { return embeds_; }
  // The head's labels (config.json's id2label, else LABEL_i), has_classifier only.
  const std::vector<std::string>& labels() const { return labels_; }
  // Whether an input past max_input_tokens is cut when a request does not say.
  bool auto_truncate() const { return rule_.truncate; }

  // The sequences of in: texts tokenized by the folder's tokenizer (special
  // tokens added), token ids checked by the input rules (models/input_rules.h)
  // as the CLI checks them: every sequence that reaches the batcher is one
  // the encoder takes, so no request can fail another's batch. field names
  // the input in messages. ApiError: 413 for more than --max-client-batch-size
  // inputs or a sequence over max_input_tokens (unless truncated), 422 for
  // text without a tokenizer, an id outside the vocabulary, an empty sequence
  // or one of pad ids only (its trailing pad ids are padding, left out).
  // Adds the tokenizing time to the metrics.
  Sequences Prepare(const Inputs& in, const std::string& field, const TextChoices& text);
  // Pairs (a[i], b[i]) for /rerank and /predict, tokenized as the
  // tokenizer's pairs; field names them in messages.
  Sequences PreparePairs(const std::vector<std::string_view>& a,
                         const std::vector<std::string_view>& b, const std::string& field,
                         const TextChoices& text);

  // Encodes seqs through the batcher: [count, width] rows. client_gone is
  // polled while it waits; if it says true, ApiError 499 (nobody reads it).
  std::vector<float> Encode(Sequences seqs, Output output,
                            const std::function<bool()>& client_gone);

  // Requests being tokenized, queued or encoded; Admit counts one in unless
  // that would pass --max-concurrent-requests (false: answer 429).
  bool Admit();
  void Release() { in_flight_.fetch_sub(1); }
  int64_t in_flight() const { return in_flight_.load(); }

  // Stops the batcher once what is queued is done.
  void Stop() { batcher_->Stop(); }

 private:
  void WarmUp();
  void ResolvePooling(BatcherOptions& b);
  void ResolveLimits();
  void CheckBatchSize(int64_t count, const std::string& field) const;
  void CheckLength(int64_t tokens, const std::string& name) const;
  Sequences Ids(const Inputs& in, const std::string& field, bool truncate) const;
  Sequences Tokenized(const std::vector<std::string_view>& a,
                      const std::vector<std::string_view>* b, const std::string& field,
                      const TextChoices& text);

  ServeOptions options_;
  std::unique_ptr<Model> model_;
  std::shared_ptr<const tokenizers::Tokenizer> tokenizer_;
  int64_t max_input_tokens_ = 0;
  std::string pooling_name_;
  bool folder_normalizes_ = false;
  bool has_classifier_ = false;
  bool embeds_ = true;
  std::vector<std::string> labels_;
  LengthRule rule_;       // the folder's, with --auto-truncate applied
  std::string limit_of_;  // where max_input_tokens_ comes from, for messages
  Metrics metrics_;
  std::unique_ptr<Batcher> batcher_;
  std::atomic<int64_t> in_flight_{0};
  std::atomic<bool> warming_up_{false};
};

}  // namespace phasor::serving

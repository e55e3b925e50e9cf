#include "models/serving/service.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string_view>

#include "engine/error.h"
#include "models/commands/option_checks.h"
#include "models/commands/tokenize_job.h"
#include "models/pooling.h"
#include "models/sentence_transformers.h"
#include "models/text_input.h"
#include "models/tokenizers/tokenizer.h"

namespace phasor::serving {
namespace {

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void CheckOptions(const ServeOptions& o) {
  if (o.model.empty()) throw UsageError("--model is required: a model folder");
  CheckRange("--port", o.port, 0, 65535);
  CheckRange("--threads", o.threads, 0, 1024);
  CheckRange("--max-batch-tokens", o.max_batch_tokens, 1, int64_t{1} << 24);
  CheckRange("--max-concurrent-requests", o.max_concurrent_requests, 1, 4096);
  CheckRange("--max-client-batch-size", o.max_client_batch_size, 1, int64_t{1} << 20);
  CheckRange("--max-input-tokens", o.max_input_tokens, 0, int64_t{1} << 24);
  CheckRange("--payload-limit", o.payload_limit, 1, int64_t{1} << 30);
}

}  // namespace

Service::Service(const ServeOptions& options, const JobEvents& events) : options_(options) {
  CheckOptions(options_);
  SetNumThreads(static_cast<int>(options_.threads));
  LoadOptions load;
  load.precision = ParseOption("--precision", options_.precision, ParsePrecision);
  model_ = std::make_unique<Model>(Model::Load(options_.model, load));
  for (const std::string& w : model_->load_warnings()) events.Warn(w);

  BatcherOptions b;
  b.max_batch_tokens = options_.max_batch_tokens;
  const bool declared = std::filesystem::exists(options_.model + "/modules.json");
  if (options_.pool.empty() || options_.pool == "model") {
    if (!declared && options_.pool == "model")
      throw UsageError("--pool model: " + options_.model +
                       " has no modules.json (not a "
                       "sentence-transformers folder); give --pool mean, cls, ...");
    if (declared) {
      const PoolSpec spec = DeclaredPooling(options_.model);
      b.embedding.pool = spec.pooling;
      b.embedding.sentence_dense = spec.dense;
      folder_normalizes_ = spec.normalize;
    } else {
      b.embedding.pool = Pooling::kMean;
    }
  } else {
    b.embedding.pool = ParseOption("--pool", options_.pool, ParsePooling);
    if (b.embedding.pool == Pooling::kNone)
      throw UsageError(
          "--pool none: the server answers one vector a sequence; give mean, cls, ...");
  }
  pooling_name_ = ToString(b.embedding.pool);
  b.on_batch = [this](const BatchReport& r) {
    if (warming_up_) return;
    metrics_.inference_seconds.Observe(r.seconds);
    metrics_.batch_tokens.Observe(static_cast<double>(r.tokens));
    metrics_.batch_size.Observe(static_cast<double>(r.sequences));
    if (r.completed) metrics_.AddTokens(r.tokens);
  };
  b.on_queued = [this](double s) {
    if (!warming_up_) metrics_.queue_seconds.Observe(s);
  };

  EncodeOptions logits;
  logits.head = HeadOutput::kLogits;
  try {
    model_->output_dim(logits);
    has_classifier_ = true;
  } catch (const Error&) {
    has_classifier_ = false;
  }

  const int64_t model_limit = model_->max_sequence_length();
  max_input_tokens_ = model_limit;
  if (tokenizers::Tokenizer::Exists(options_.model)) {
    tokenizer_ = model_->tokenizer();
    TextRequest r;
    r.truncate = true;
    max_input_tokens_ = TextOptionsOf(options_.model, r, *tokenizer_, model_limit).max_length;
  }
  // A model without a table of positions (sinusoidal, RoPE) holds more than
  // any batch: then a batch's worth is the bound.
  if (options_.max_input_tokens == 0 && max_input_tokens_ > options_.max_batch_tokens &&
      model_limit > (int64_t{1} << 24)) {
    max_input_tokens_ = options_.max_batch_tokens;
  }
  if (options_.max_input_tokens > 0) {
    if (options_.max_input_tokens > model_limit) {
      throw UsageError("--max-input-tokens " + std::to_string(options_.max_input_tokens) +
                       " is more than the model holds: " + model_->max_sequence_length_of());
    }
    max_input_tokens_ = options_.max_input_tokens;
  }
  if (options_.max_batch_tokens < max_input_tokens_) {
    throw UsageError("--max-batch-tokens " + std::to_string(options_.max_batch_tokens) +
                     " is less than the longest input (" + std::to_string(max_input_tokens_) +
                     " tokens): give at least that, or a smaller --max-input-tokens");
  }
  batcher_ = std::make_unique<Batcher>(*model_, std::move(b));
  WarmUp();
}

void Service::WarmUp() {
  // One short sequence through the batcher before the first client: its
  // threads and the encoder's workspace exist by then (the metrics skip it).
  const std::optional<int32_t> pad = model_->pad_token_id();
  const int32_t id =
      static_cast<int32_t>(std::min<int64_t>(pad && *pad == 0 ? 1 : 0, model_->vocab_size() - 1));
  Sequences s;
  const int64_t n = std::min<int64_t>(8, max_input_tokens_);
  s.ids.assign(static_cast<size_t>(n), id);
  s.offsets = {0, n};
  warming_up_ = true;
  const auto job = batcher_->Submit(std::move(s), Output::kEmbedding);
  batcher_->Wait(*job, nullptr);
  warming_up_ = false;
  if (!job->error().empty())
    throw Error(options_.model + ": the warm-up encode failed: " + job->error());
}

Service::~Service() = default;

bool Service::Admit() {
  if (in_flight_.fetch_add(1) >= options_.max_concurrent_requests) {
    in_flight_.fetch_sub(1);
    return false;
  }
  return true;
}

void Service::CheckLength(int64_t tokens, const std::string& name) const {
  if (tokens == 0) throw ApiError{422, "Validation", name + " holds no token: nothing to encode"};
  if (tokens > max_input_tokens_) {
    throw ApiError{413, "Validation",
                   name + " has " + std::to_string(tokens) + " tokens, more than the " +
                       std::to_string(max_input_tokens_) +
                       " the server takes (--max-input-tokens); send \"truncate\": true to cut "
                       "it"};
  }
}

Sequences Service::Tokenized(const std::vector<std::string_view>& a,
                             const std::vector<std::string_view>* b, const std::string& field,
                             const TextChoices& text) {
  if (!tokenizer_) {
    throw ApiError{422, "Tokenizer",
                   "'" + field + "' is text, and " + options_.model +
                       " has no tokenizer (tokenizer.json, vocab.txt, ...): send token ids"};
  }
  TextOptions o;
  o.add_special_tokens = text.add_special_tokens;
  o.max_length = text.truncate ? max_input_tokens_ : 0;
  if (!text.prompt_name.empty()) {
    try {
      o.prefix = PromptText(options_.model, text.prompt_name);
    } catch (const Error& e) {
      throw ApiError{422, "Validation", std::string("'prompt_name': ") + e.what()};
    }
  }
  const auto start = Clock::now();
  TokenizedLines lines;
  try {
    lines = TokenizeTexts(*tokenizer_, a, b, o,
                          [&field](int64_t i) { return field + "[" + std::to_string(i) + "]"; });
  } catch (const Error& e) {
    throw ApiError{422, "Tokenizer", e.what()};
  }
  metrics_.tokenize_seconds.Observe(Since(start));
  Sequences s;
  s.ids = std::move(lines.batch.ids);
  s.offsets = std::move(lines.batch.offsets);
  s.types = std::move(lines.batch.types);
  for (int64_t i = 0; i < s.count(); ++i)
    CheckLength(s.offsets[i + 1] - s.offsets[i], field + "[" + std::to_string(i) + "]");
  return s;
}

Sequences Service::Prepare(const Inputs& in, const std::string& field, const TextChoices& text) {
  if (in.count() > options_.max_client_batch_size) {
    throw ApiError{413, "Validation",
                   "'" + field + "' holds " + std::to_string(in.count()) +
                       " inputs, more than the " + std::to_string(options_.max_client_batch_size) +
                       " a request may (--max-client-batch-size)"};
  }
  if (in.is_text()) {
    const std::vector<std::string_view> a(in.texts.begin(), in.texts.end());
    return Tokenized(a, nullptr, field, text);
  }
  Sequences s;
  s.offsets.push_back(0);
  const int64_t vocab = model_->vocab_size();
  for (size_t i = 0; i < in.ids.size(); ++i) {
    const std::string name = in.one ? field : field + "[" + std::to_string(i) + "]";
    const std::vector<int64_t>& ids = in.ids[i];
    int64_t n = static_cast<int64_t>(ids.size());
    if (text.truncate) n = std::min(n, max_input_tokens_);
    CheckLength(n, name);
    for (int64_t j = 0; j < n; ++j) {
      if (ids[j] < 0 || ids[j] >= vocab) {
        throw ApiError{422, "Validation",
                       name + "[" + std::to_string(j) + "]: token id " + std::to_string(ids[j]) +
                           " is outside the vocabulary [0, " + std::to_string(vocab) + ")"};
      }
      s.ids.push_back(static_cast<int32_t>(ids[j]));
    }
    s.offsets.push_back(s.offsets.back() + n);
  }
  return s;
}

Sequences Service::PreparePairs(const std::string& query, const std::vector<std::string>& texts,
                                const TextChoices& text) {
  if (static_cast<int64_t>(texts.size()) > options_.max_client_batch_size) {
    throw ApiError{413, "Validation",
                   "'texts' holds " + std::to_string(texts.size()) + " texts, more than the " +
                       std::to_string(options_.max_client_batch_size) +
                       " a request may (--max-client-batch-size)"};
  }
  const std::vector<std::string_view> a(texts.size(), query);
  const std::vector<std::string_view> b(texts.begin(), texts.end());
  return Tokenized(a, &b, "texts", text);
}

std::vector<float> Service::Encode(Sequences seqs, Output output,
                                   const std::function<bool()>& client_gone) {
  const std::shared_ptr<Job> job = batcher_->Submit(std::move(seqs), output);
  if (!batcher_->Wait(*job, client_gone)) {
    const std::string error = job->error();
    if (job->cancelled() && (error.empty() || error == "cancelled"))
      throw ApiError{499, "Cancelled", "the client closed the connection"};
    if (error == "the server is shutting down") throw ApiError{503, "Unhealthy", error};
    throw ApiError{424, "Backend", error};
  }
  return std::move(job->rows());
}

}  // namespace phasor::serving

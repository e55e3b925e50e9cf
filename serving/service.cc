#include "serving/service.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "commands/option_checks.h"
#include "commands/output_choice.h"
#include "commands/tokenize_job.h"
#include "engine/error.h"
#include "engine/id_range.h"
#include "engine/model_folder.h"
#include "models/input_rules.h"
#include "models/pooling.h"
#include "models/sentence_transformers.h"
#include "models/text_input.h"
#include "tokenizers/tokenizer.h"

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

// The labels of the classification head: config.json's id2label in the order
// of its ids, else LABEL_0 .. LABEL_{n-1} (transformers' defaults).
std::vector<std::string> HeadLabels(const ModelFolder& folder, int64_t n) {
  std::vector<std::string> labels(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) labels[i] = "LABEL_" + std::to_string(i);
  const nlohmann::json* config = folder.Json("config.json");  // read strictly at load
  if (config == nullptr || !config->is_object() || !config->contains("id2label") ||
      !(*config)["id2label"].is_object())
    return labels;
  for (const auto& [key, value] : (*config)["id2label"].items()) {
    int64_t id = -1;
    const auto r = std::from_chars(key.data(), key.data() + key.size(), id);
    if (r.ec == std::errc() && r.ptr == key.data() + key.size() && id >= 0 && id < n &&
        value.is_string())
      labels[static_cast<size_t>(id)] = value.get<std::string>();
  }
  return labels;
}

}  // namespace

Service::Service(const ServeOptions& options, const JobEvents& events) : options_(options) {
  CheckOptions(options_);
  SetNumThreads(static_cast<int>(options_.threads));
  LoadOptions load;
  load.precision = ParseOption("--precision", options_.precision, ParsePrecision);
  load.rope_angles = ParseOption("--rope-angles", options_.rope_angles, ParseRopeAngles);
  model_ = std::make_unique<Model>(Model::Load(options_.model, load));
  for (const std::string& w : model_->load_warnings()) events.Warn(w);

  BatcherOptions b;
  b.max_batch_tokens = options_.max_batch_tokens;
  ResolvePooling(b);
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
    labels_ = HeadLabels(*model_->folder(), model_->output_dim(logits));
    has_classifier_ = true;
  } catch (const Error&) {
    has_classifier_ = false;
  }
  // A cross-encoder (a classification head, no sentence-transformers modules)
  // scores pairs; its pooled rows would be no embedding of anything.
  embeds_ = !has_classifier_ || IsSentenceTransformersFolder(model_->folder());
  if (tokenizers::Tokenizer::Exists(*model_->folder())) tokenizer_ = model_->tokenizer();
  ResolveLimits();
  batcher_ = std::make_unique<Batcher>(*model_, std::move(b));
  WarmUp();
}

void Service::ResolvePooling(BatcherOptions& b) {
  // The server's default: the folder's own pooling, else mean; one vector a
  // sequence, so never none.
  const bool declared = IsSentenceTransformersFolder(model_->folder());
  const std::string pool = !options_.pool.empty() ? options_.pool : declared ? "model" : "mean";
  if (pool == "none") {
    throw UsageError("--pool none: the server answers one vector a sequence; give mean, cls, ...");
  }
  OutputAsk ask;
  ask.pool = pool;  // the folder's errors as they are: no way to every row here
  const OutputChoice c = ResolveOutput(ask, model_->folder(), kCliSpelling);
  b.embedding.pool = c.pool;
  b.embedding.sentence_dense = c.sentence_dense;
  folder_normalizes_ = c.normalize;
  pooling_name_ = ToString(b.embedding.pool);
}

void Service::ResolveLimits() {
  // The folder's one rule (models/length_rule.h): the least of the
  // tokenizer's, the sentence-transformers folder's and the model's limits.
  const int64_t model_limit = model_->max_sequence_length();
  rule_ = ResolveLengthRule(model_->folder(), tokenizer_.get(), model_limit,
                            model_->max_sequence_length_of(), options_.auto_truncate);
  max_input_tokens_ = rule_.limit;
  limit_of_ = rule_.limit_of;
  // A model without a table of positions (sinusoidal, RoPE) holds more than
  // any batch: then a batch's worth is the bound.
  if (options_.max_input_tokens == 0 && max_input_tokens_ > options_.max_batch_tokens &&
      model_limit > (int64_t{1} << 24)) {
    max_input_tokens_ = options_.max_batch_tokens;
    limit_of_ = "--max-batch-tokens (the model's positions hold more)";
  }
  if (options_.max_input_tokens > 0) {
    if (options_.max_input_tokens > model_limit) {
      throw UsageError("--max-input-tokens " + std::to_string(options_.max_input_tokens) +
                       " is more than the model holds: " + model_->max_sequence_length_of());
    }
    max_input_tokens_ = options_.max_input_tokens;
    limit_of_ = "--max-input-tokens";
  }
  if (options_.max_batch_tokens < max_input_tokens_) {
    throw UsageError("--max-batch-tokens " + std::to_string(options_.max_batch_tokens) +
                     " is less than the longest input (" + std::to_string(max_input_tokens_) +
                     " tokens, " + limit_of_ +
                     "): give at least that, or a smaller --max-input-tokens");
  }
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

void Service::CheckBatchSize(int64_t count, const std::string& field) const {
  if (count > options_.max_client_batch_size) {
    throw ApiError{413, "Validation",
                   "'" + field + "' holds " + std::to_string(count) + " inputs, more than the " +
                       std::to_string(options_.max_client_batch_size) +
                       " a request may (--max-client-batch-size)",
                   field};
  }
}

void Service::CheckLength(int64_t tokens, const std::string& name) const {
  if (tokens == 0) throw ApiError{422, "Validation", name + " holds no token: nothing to encode"};
  if (tokens > max_input_tokens_) {
    throw ApiError{413, "Validation",
                   name + " has " + std::to_string(tokens) + " tokens, more than the " +
                       std::to_string(max_input_tokens_) + " of " + limit_of_ +
                       "; send \"truncate\": true to cut it (or start the server with "
                       "--auto-truncate)"};
  }
}

Sequences Service::Tokenized(const std::vector<std::string_view>& a,
                             const std::vector<std::string_view>* b, const std::string& field,
                             const TextChoices& text) {
  if (!tokenizer_) {
    throw ApiError{422, "Tokenizer",
                   "'" + field + "' is text, and " + options_.model +
                       " has no tokenizer (tokenizer.json, vocab.txt, ...): send token ids",
                   field};
  }
  TextOptions o;
  o.add_special_tokens = text.add_special_tokens;
  o.max_length = text.truncate.value_or(rule_.truncate) ? max_input_tokens_ : 0;
  if (text.offsets) o.offsets = tokenizers::OffsetUnit::kBytes;
  if (!text.prompt_name.empty()) {
    try {
      o.prefix = model_->folder()->Prompt(text.prompt_name);  // read at load
    } catch (const Error& e) {
      throw ApiError{422, "Validation", std::string("'prompt_name': ") + e.what(), "prompt_name"};
    }
  }
  const auto start = Clock::now();
  TokenizedLines lines;
  try {
    lines = TokenizeTexts(*tokenizer_, a, b, o,
                          [&field](int64_t i) { return field + "[" + std::to_string(i) + "]"; });
  } catch (const Error& e) {
    throw ApiError{422, "Tokenizer", e.what(), field};
  }
  metrics_.tokenize_seconds.Observe(Since(start));
  Sequences s;
  s.ids = std::move(lines.batch.ids);
  s.offsets = std::move(lines.batch.offsets);
  s.spans = std::move(lines.spans);
  s.special = std::move(lines.special);
  s.prefix = o.prefix;
  // Token types only for a model that has them; others read a pair as one
  // text (as encode --text-file does).
  if (model_->token_types() >= 2) s.types = std::move(lines.batch.types);
  for (int64_t i = 0; i < s.count(); ++i)
    CheckLength(s.offsets[i + 1] - s.offsets[i], field + "[" + std::to_string(i) + "]");
  return s;
}

Sequences Service::Ids(const Inputs& in, const std::string& field, bool truncate) const {
  const int64_t vocab = model_->vocab_size();
  const auto name = [&](int64_t i) {
    return in.one ? field : field + "[" + std::to_string(i) + "]";
  };
  // Each sequence's ids inside the vocabulary, back to back.
  std::vector<int32_t> ids;
  std::vector<int64_t> start, given;
  for (size_t i = 0; i < in.ids.size(); ++i) {
    start.push_back(static_cast<int64_t>(ids.size()));
    given.push_back(static_cast<int64_t>(in.ids[i].size()));
    for (size_t j = 0; j < in.ids[i].size(); ++j) {
      const int64_t id = in.ids[i][j];
      if (id < 0 || id >= vocab) {  // int64 as the client sent it: OutsideRange words it
        throw ApiError{422, "Validation",
                       name(static_cast<int64_t>(i)) + "[" + std::to_string(j) +
                           "]: " + OutsideRange(id, vocab),
                       field};
      }
      ids.push_back(static_cast<int32_t>(id));
    }
  }
  // The rules every front end applies: no empty sequence, none of pad ids
  // only, trailing pad ids left out as padding.
  SequenceRules rules;
  rules.pad_id = model_->pad_token_id();
  rules.warn_trailing_pads = false;
  const Spans spans{start.data(), given.data(), static_cast<int64_t>(given.size()), nullptr};
  RealTokens real;
  try {
    real = ResolveRealTokens(ids.data(), spans, rules, "'" + field + "'", name);
  } catch (const Error& e) {
    throw ApiError{422, "Validation", e.what(), field};
  }
  Sequences s;
  s.offsets.push_back(0);
  for (size_t i = 0; i < given.size(); ++i) {
    int64_t n = real.lengths[i];
    if (truncate) n = std::min(n, max_input_tokens_);
    CheckLength(n, name(static_cast<int64_t>(i)));
    s.ids.insert(s.ids.end(), ids.begin() + start[i], ids.begin() + start[i] + n);
    s.offsets.push_back(s.offsets.back() + n);
  }
  return s;
}

Sequences Service::Prepare(const Inputs& in, const std::string& field, const TextChoices& text) {
  CheckBatchSize(in.count(), field);
  if (in.is_text()) {
    const std::vector<std::string_view> a(in.texts.begin(), in.texts.end());
    return Tokenized(a, nullptr, field, text);
  }
  return Ids(in, field, text.truncate.value_or(rule_.truncate));
}

Sequences Service::PreparePairs(const std::vector<std::string_view>& a,
                                const std::vector<std::string_view>& b, const std::string& field,
                                const TextChoices& text) {
  CheckBatchSize(static_cast<int64_t>(a.size()), field);
  return Tokenized(a, &b, field, text);
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

#include "models/commands/tokenize_job.h"

#include <filesystem>
#include <memory>

#include "engine/error.h"
#include "engine/output_file.h"
#include "engine/parallel.h"
#include "models/commands/option_checks.h"
#include "models/commands/timing.h"
#include "models/encoder.h"
#include "models/length_rule.h"

namespace phasor {
namespace {

// Text read and tokenized at once: large enough for every thread to have
// many lines, small enough that memory stays flat on any corpus.
constexpr size_t kBlockBytes = size_t{8} << 20;

// The model's positions for --truncate when the tokenizer's files give no
// bound (no model_max_length, or transformers' 1e30 for "no limit") and the
// folder holds a model (config.json); -1 otherwise, as for a folder with only
// a tokenizer. Loading the model is the price of that one case.
int64_t PositionsForTruncation(const TextRequest& r, const std::string& dir,
                               const tokenizers::Tokenizer& tokenizer) {
  if (!r.truncate || r.max_length != 0) return -1;
  if (ResolveLengthRule(dir, &tokenizer, -1, "", true).limit > 0) return -1;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(dir + "/config.json", ec)) return -1;
  return Encoder::Load(dir)->MaxSequenceLength();
}

}  // namespace

TextOptions TextOptionsOf(const std::string& model, const TextRequest& r,
                          const tokenizers::Tokenizer& tokenizer, int64_t model_limit) {
  const bool pairs = r.pairs, no_special = r.no_special, truncate = r.truncate;
  const int64_t max_length = r.max_length;
  const std::string &invalid_utf8 = r.invalid_utf8, &prompt = r.prompt, &prefix = r.prefix;
  TextOptions o;
  o.pairs = pairs;
  o.add_special_tokens = !no_special;
  if (invalid_utf8 != "error" && invalid_utf8 != "replace")
    throw UsageError("--invalid-utf8 must be 'error' or 'replace', got '" + invalid_utf8 + "'");
  o.replace_invalid_utf8 = invalid_utf8 == "replace";
  if (!prompt.empty() && !prefix.empty())
    throw UsageError("--prompt and --prefix do not go together: give one");
  o.prefix = prompt.empty() ? prefix : PromptText(model, prompt);
  CheckRange("--max-length", max_length, 0, int64_t{1} << 30);
  o.max_length = max_length;
  if (truncate && max_length == 0) {
    const LengthRule rule =
        ResolveLengthRule(model, &tokenizer, model_limit, "the model's positions", true);
    if (rule.limit == 0 && model_limit < 0)
      throw UsageError(
          "--truncate: the tokenizer has no model_max_length (tokenizer_config.json; 1e30 "
          "means none) and the folder no model (config.json); give --max-length N");
    o.max_length = rule.limit;
  }
  return o;
}

TokenizeResult RunTokenize(const TokenizeRequest& r, const JobEvents& events,
                           const std::function<void(const std::string&)>& sink) {
  if (r.model.empty()) throw UsageError("tokenize needs --model, a folder with a tokenizer");
  if (r.text_file.empty()) throw UsageError("tokenize needs --text-file");
  CheckRange("--threads", r.threads, 0, 1024);
  if (!r.output.empty()) {
    CheckDistinctPaths({{"--output", r.output}}, {{"--text-file", r.text_file}});
    CheckWritable(r.output);
  }
  const double t0 = Now();
  SetNumThreads(static_cast<int>(r.threads));
  const auto tokenizer = tokenizers::Tokenizer::Load(r.model);
  const TextOptions o = TextOptionsOf(r.model, r.text, *tokenizer,
                                      PositionsForTruncation(r.text, r.model, *tokenizer));
  std::unique_ptr<OutputFile> file;
  if (!r.output.empty()) file = std::make_unique<OutputFile>(r.output);
  TokenizeResult result;
  result.tokenizer = tokenizer->description();
  std::string text;
  ForEachLineBlock(r.text_file, kBlockBytes, [&](std::string_view block, int64_t first_line) {
    const TokenizedLines lines = TokenizeLines(*tokenizer, block, first_line, r.text_file, o);
    text.clear();
    text.reserve(block.size() + block.size() / 2);
    for (int64_t i = 0; i < lines.batch.batch; ++i) AppendTokensLine(lines, i, text);
    if (file) {
      file->Write(text);
    } else {
      sink(text);
    }
    result.lines += lines.batch.batch;
    result.tokens += static_cast<int64_t>(lines.batch.ids.size());
    result.bytes += static_cast<int64_t>(block.size());
    events.Progress(result.bytes);
  });
  if (file) {
    file->Commit();
    events.Wrote(r.output, std::to_string(result.lines) + " lines, " +
                               std::to_string(result.tokens) + " ids (" + result.tokenizer + ")");
  }
  result.seconds = Now() - t0;
  return result;
}

}  // namespace phasor

#include "commands/tokenize_job.h"

#include <algorithm>
#include <memory>

#include "commands/option_checks.h"
#include "commands/timing.h"
#include "engine/error.h"
#include "engine/model_folder.h"
#include "engine/output_file.h"
#include "engine/parallel.h"
#include "models/encoder.h"
#include "models/length_rule.h"

namespace phasor {
namespace {

// Text read and tokenized at once: 128 KiB a thread (two of TokenizeLines'
// tasks each), at most 8 MiB. Small blocks run faster than large ones (one
// thread, 2 MB of text: 0.10 s in blocks of 128 KiB, 0.13 s in 8 MiB): their
// buffers are reused block after block, warm in the cache, where a large
// block's are memory touched for the first time.
size_t BlockBytes() {
  const size_t per_thread = size_t{128} << 10;
  return std::clamp<size_t>(per_thread * static_cast<size_t>(NumThreads()), per_thread,
                            size_t{8} << 20);
}

// The model's positions for --truncate when the tokenizer's files give no
// bound (no model_max_length, or transformers' 1e30 for "no limit") and the
// folder holds a model (config.json); -1 otherwise, as for a folder with only
// a tokenizer. Loading the model is the price of that one case.
int64_t PositionsForTruncation(const TextRequest& r, const ModelFolder& folder,
                               const tokenizers::Tokenizer& tokenizer) {
  if (r.truncate != true || r.max_length != 0) return -1;
  if (ResolveLengthRule(&folder, &tokenizer, -1, "", true).limit > 0) return -1;
  if (!folder.HasFile("config.json")) return -1;
  return Encoder::Load(folder)->MaxSequenceLength();
}

}  // namespace

LengthRule TextLengthRule(const ModelFolder* folder, const TextRequest& r,
                          const tokenizers::Tokenizer& tokenizer, int64_t model_limit,
                          const std::string& model_limit_of) {
  CheckRange("--max-length", r.max_length, 0, int64_t{1} << 30);
  if (r.max_length > 0) {
    return LengthRule{r.max_length, "--max-length " + std::to_string(r.max_length), true};
  }
  return ResolveLengthRule(folder, &tokenizer, model_limit, model_limit_of, r.truncate);
}

TextOptions TextOptionsOf(const ModelFolder* folder, const TextRequest& r,
                          const tokenizers::Tokenizer& tokenizer, int64_t model_limit,
                          const std::string& model_limit_of) {
  TextOptions o;
  o.pairs = r.pairs;
  o.add_special_tokens = !r.no_special;
  if (r.invalid_utf8 != "error" && r.invalid_utf8 != "replace")
    throw UsageError("--invalid-utf8 must be 'error' or 'replace', got '" + r.invalid_utf8 + "'");
  o.replace_invalid_utf8 = r.invalid_utf8 == "replace";
  if (!r.prompt.empty() && !r.prefix.empty())
    throw UsageError("--prompt and --prefix do not go together: give one");
  if (!r.prompt.empty() && folder == nullptr)
    throw UsageError("--prompt needs --model, a sentence-transformers folder");
  o.prefix = r.prompt.empty() ? r.prefix : folder->Prompt(r.prompt);
  o.offsets = r.offsets;
  const LengthRule rule = TextLengthRule(folder, r, tokenizer, model_limit, model_limit_of);
  if (rule.truncate && rule.limit == 0 && r.truncate == true && model_limit < 0)
    throw UsageError(
        "--truncate: the tokenizer has no model_max_length (tokenizer_config.json; 1e30 "
        "means none), the folder no max_seq_length (sentence_bert_config.json) and no "
        "model (config.json); give --max-length N");
  if (rule.truncate) {
    o.max_length = rule.limit;
  } else if (r.refuse_too_long) {
    o.refuse = rule;
  }
  return o;
}

TextSource TextSourceOf(const std::string& path, const TextRequest& r) {
  TextSource s;
  s.path = path;
  if (!r.jsonl_field.empty() && !r.csv_column.empty())
    throw UsageError("--jsonl-field and --csv-column do not go together: give one");
  if (!r.jsonl_field.empty()) s.fields = ParseFieldNames("--jsonl-field", r.jsonl_field, r.pairs);
  if (!r.csv_column.empty()) s.columns = ParseFieldNames("--csv-column", r.csv_column, r.pairs);
  return s;
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
  if (r.text.max_length > 0 && r.text.truncate == false)
    throw UsageError("--max-length cuts each text: it does not go with --no-truncate");
  const TextSource source = TextSourceOf(r.text_file, r.text);
  const double t0 = Now();
  SetNumThreads(static_cast<int>(r.threads));
  const auto folder = ModelFolder::Open(r.model);  // read once: every file below comes from it
  const auto tokenizer = tokenizers::Tokenizer::Load(*folder);
  const double loaded = Now() - t0;
  TextRequest text_request = r.text;
  text_request.refuse_too_long = true;
  const TextOptions o = TextOptionsOf(folder.get(), text_request, *tokenizer,
                                      PositionsForTruncation(r.text, *folder, *tokenizer));
  const std::string warning = CsvReadAsLinesWarning(source);
  if (!warning.empty()) events.Warn(warning);
  std::unique_ptr<OutputFile> file;
  if (!r.output.empty()) file = std::make_unique<OutputFile>(r.output);
  TokenizeResult result;
  result.tokenizer = tokenizer->description();
  std::string text;
  ForEachTokenizedBlock(*tokenizer, source, o, BlockBytes(),
                        [&](const TokenizedLines& lines, size_t bytes) {
                          text.clear();
                          text.reserve(lines.batch.ids.size() * 6);
                          for (int64_t i = 0; i < lines.batch.batch; ++i) {
                            if (o.offsets == tokenizers::OffsetUnit::kNone) {
                              AppendTokensLine(lines, i, text);
                            } else {
                              AppendOffsetsLine(lines, i, text);
                            }
                          }
                          if (file) {
                            file->Write(text);
                          } else {
                            sink(text);
                          }
                          result.lines += lines.batch.batch;
                          result.tokens += static_cast<int64_t>(lines.batch.ids.size());
                          result.bytes += static_cast<int64_t>(bytes);
                          events.Progress(result.bytes);
                        });
  // An input that gave no text is said so, never an empty output and exit 0.
  if (result.lines == 0) throw Error(SourceName(r.text_file) + ": no text to tokenize");
  result.tokenize_seconds = Now() - t0 - loaded;
  if (file) {
    file->Commit();
    events.Wrote(r.output, std::to_string(result.lines) + " lines, " +
                               std::to_string(result.tokens) + " ids (" + result.tokenizer + ")");
  }
  result.seconds = Now() - t0;
  result.load_seconds = loaded;
  return result;
}

}  // namespace phasor

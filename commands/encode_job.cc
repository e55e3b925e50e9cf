#include "commands/encode_job.h"

#include <algorithm>
#include <cstdio>

#include "commands/option_checks.h"
#include "commands/output_choice.h"
#include "commands/timing.h"
#include "commands/tokenize_job.h"
#include "engine/memory_limit.h"
#include "engine/npy.h"
#include "engine/output_file.h"
#include "engine/parallel.h"
#include "engine/size_limits.h"
#include "models/corpus.h"
#include "models/heads.h"
#include "models/length_rule.h"
#include "models/toy.h"

namespace phasor {
namespace {

// The offsets file beside a packed output: OUT.npy -> OUT.offsets.npy.
std::string OffsetsPath(const EncodeRequest& r) {
  if (!r.offsets.empty()) return r.offsets;
  return r.output.substr(0, r.output.size() - 4) + ".offsets.npy";
}

// One output row a line: pooled or through a head.
bool OneRowEach(const EncodeChoices& c) {
  return c.pool != Pooling::kNone || c.stage == EncoderStage::kPooler ||
         c.stage == EncoderStage::kLogits;
}

bool IsCsv(const std::string& path) {
  return path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
}

// The output paths, checked before anything is loaded or computed. one_row:
// one output row a line (pooled or a head), which .csv can hold.
void CheckOutputs(const EncodeRequest& r, bool packed, bool one_row) {
  if (!r.output.empty()) {
    const std::string formats =
        "encode writes .npy (float32 [batch, seq, d_model]; with --layout packed [real tokens, "
        "d_model]) and, for one row a line (--pool or --stage pooler|logits: [batch, width]), "
        "also .csv";
    const bool npy = r.output.size() >= 4 && r.output.compare(r.output.size() - 4, 4, ".npy") == 0;
    if (!npy && !(IsCsv(r.output) && one_row)) {
      throw UsageError(std::string("--output must end in .npy") + (one_row ? " or .csv" : "") +
                       ", got '" + r.output + "': " + formats);
    }
    if (packed) OutputFormat("--offsets", OffsetsPath(r), {".npy"});
    CheckDistinctPaths({{"--output", r.output}, {"--offsets", packed ? OffsetsPath(r) : ""}},
                       {{"--tokens-file", r.tokens_file.value_or("")},
                        {"--text-file", r.text_file.value_or("")},
                        {"--model", r.model.empty() ? "" : r.model + "/config.json"},
                        {"--model", r.model.empty() ? "" : r.model + "/model.safetensors"}});
    CheckWritable(r.output);
    if (packed) CheckWritable(OffsetsPath(r));
  } else if (!r.offsets.empty()) {
    throw UsageError("--offsets needs --output");
  }
}

std::string Dims(const std::vector<int64_t>& shape) {
  std::string dims;
  for (size_t k = 0; k < shape.size(); ++k) dims += (k ? ", " : "") + std::to_string(shape[k]);
  return dims;
}

// --pool, or the folder's default: model for a sentence-transformers folder
// at stage final, layout padded (as sentence-transformers pools it), else none.
std::string PoolOption(const EncodeRequest& r, EncoderStage stage, const ModelFolder* folder) {
  if (!r.pool.empty()) return r.pool;
  const bool st = IsSentenceTransformersFolder(folder);
  return st && stage == EncoderStage::kFinal && r.layout == "padded" ? "model" : "none";
}

}  // namespace

EncoderStage ParseStage(const std::string& option, const std::string& text) {
  if (text == "final") return EncoderStage::kFinal;
  if (text == "embeddings") return EncoderStage::kEmbeddings;
  if (text == "pooler") return EncoderStage::kPooler;
  if (text == "logits") return EncoderStage::kLogits;
  throw UsageError(option + " must be 'embeddings', 'final', 'pooler' or 'logits', got '" + text +
                   "'");
}

EncodeChoices CheckEncodeRequest(const EncodeRequest& r) {
  if (int(r.tokens.has_value()) + int(r.tokens_file.has_value()) + int(r.text_file.has_value()) !=
      1) {
    throw UsageError("give exactly one of --tokens, --tokens-file and --text-file");
  }
  if (r.text_file && r.model.empty())
    throw UsageError("--text-file needs --model, a folder with the model's tokenizer");
  if (!r.text_file) {
    const TextRequest& t = r.text;
    const char* text_only = t.pairs                     ? "--pairs"
                            : t.no_special              ? "--no-special"
                            : !t.prompt.empty()         ? "--prompt"
                            : !t.prefix.empty()         ? "--prefix"
                            : t.invalid_utf8 != "error" ? "--invalid-utf8"
                            : !t.jsonl_field.empty()    ? "--jsonl-field"
                            : !t.csv_column.empty()     ? "--csv-column"
                                                        : nullptr;
    if (text_only) throw UsageError(std::string(text_only) + " needs --text-file");
  }
  const EncoderStage stage = ParseStage("--stage", r.stage);
  if (r.layout != "padded" && r.layout != "packed") {
    throw UsageError("--layout must be 'padded' or 'packed', got '" + r.layout + "'");
  }
  CheckRange("--threads", r.threads, 0, 1024);
  CheckRange("--repeat", r.repeat, 1, 1000000);
  CheckRange("--batch-tokens", r.batch_tokens, 0, kMaxBatchTokens);
  EncodeChoices c;
  if (!r.pe_mode.empty()) c.pe_mode = ParseOption("--pe-mode", r.pe_mode, ParsePeMode);
  c.precision = ParseOption("--precision", r.precision, ParsePrecision);
  c.rope_angles = ParseOption("--rope-angles", r.rope_angles, ParseRopeAngles);
  if (!r.model.empty()) c.folder = ModelFolder::Open(r.model);
  c.pool_option = PoolOption(r, stage, c.folder.get());
  if (c.pool_option == "model" && r.model.empty()) {
    throw UsageError("--pool model needs --model, a sentence-transformers folder");
  }
  OutputAsk ask{stage, r.stage, c.pool_option, r.pool.empty(), r.normalize, r.layout == "packed"};
  const OutputChoice out = ResolveOutput(ask, c.folder.get(), kCliSpelling);
  c.pool = out.pool;
  c.normalize = out.normalize;
  c.sentence_dense = out.sentence_dense;
  c.packed = out.packed;
  if (!r.offsets.empty() && !c.packed) throw UsageError("--offsets needs --layout packed");
  CheckOutputs(r, c.packed, OneRowEach(c));
  if (c.packed && !r.output.empty()) c.offsets_path = OffsetsPath(r);
  c.stage = stage;
  return c;
}

// The output of a run: its shape, where each sequence's rows go, the file.
struct EncodeJob::Output {
  std::unique_ptr<CorpusEncoder> corpus;
  CorpusWorkspace ws;
  std::vector<int64_t> shape;
  std::vector<int64_t> offsets;  // [batch + 1] packed rows of each sequence
  std::unique_ptr<NpyWriter> writer;
  std::vector<float> csv_rows;  // --output .csv: [batch, width], written at the end
};

EncodeJob::EncodeJob(const EncodeRequest& request, const JobEvents& events)
    : request_(request), choices_(CheckEncodeRequest(request)), events_(events) {
  SetNumThreads(static_cast<int>(request_.threads));
  if (request_.model.empty()) {
    ModelConfig c = ToyConfig();
    if (choices_.pe_mode) c.positional.mode = *choices_.pe_mode;
    c.positional.rope_angles = choices_.rope_angles;
    encoder_ = std::make_unique<Encoder>(c, ToyWeights(c), choices_.precision);
    model_name_ = "built-in toy";
  } else {
    encoder_ =
        Encoder::Load(*choices_.folder, choices_.pe_mode, choices_.precision, choices_.rope_angles);
    model_name_ = request_.model;
    for (const std::string& w : encoder_->LoadWarnings()) events_.Warn(w);
  }
  const ModelConfig& c = encoder_->config();
  const bool from_file = request_.tokens_file.has_value();
  const bool from_text = request_.text_file.has_value();
  const std::string source = from_text   ? SourceName(*request_.text_file)
                             : from_file ? SourceName(*request_.tokens_file)
                                         : std::string("--tokens");
  const bool pairs = c.token_types >= 2;  // a tab marks segment 1 (models/tokens.h)
  if (from_text) {
    const double t0 = Now();
    tokens_ = TokenizeTextFile(c);
    tokenize_seconds_ = Now() - t0;
  } else {
    tokens_ = from_file ? LoadTokens(*request_.tokens_file, pairs)
                        : ParseTokens(*request_.tokens, source, pairs);
  }
  CheckTokenIds(tokens_, c.vocab_size, source);  // naming the file's line and token
  // The tokens encoded: each line less its trailing pad ids (models/input_rules.h);
  // a text's ids are all real, whatever its tokenizer made of it.
  // Text: the length rule's limit, with which TokenizeTextFile cut or refused
  // each line; token ids: the model's positions (ids are not text).
  SequenceRules& rules = rules_;
  if (!from_text) {
    rules.pad_id = c.pad_token_id;
    rules.max_length = encoder_->MaxSequenceLength();
    rules.max_length_of = encoder_->MaxSequenceLengthOf();
    rules.truncate = request_.truncate.value_or(false);
  }
  rules.padded_output = !choices_.packed && !OneRowEach(choices_);
  rules.unit = "line";
  const Spans given{tokens_.offsets.data(), tokens_.lengths.data(), tokens_.batch, nullptr};
  real_ = ResolveRealTokens(tokens_.ids.data(), given, rules, source, [&](int64_t b) {
    return source + ": line " + std::to_string(tokens_.lines[b]);
  });
  if (!real_.warning.empty()) events_.Warn(real_.warning);
  HeadProducts(c, choices_.stage, encoder_->weights().source());  // a head the model has
}

EncodeJob::~EncodeJob() = default;

TokenBatch EncodeJob::TokenizeTextFile(const ModelConfig& c) {
  const EncodeRequest& r = request_;
  const TextSource source = TextSourceOf(*r.text_file, r.text);
  const ModelFolder& folder = *choices_.folder;
  const auto tokenizer = tokenizers::Tokenizer::Load(folder);
  TextRequest text = r.text;
  text.truncate = r.truncate;
  text.refuse_too_long = true;
  const int64_t positions = encoder_->MaxSequenceLength();
  const std::string positions_of = encoder_->MaxSequenceLengthOf();
  const TextOptions o = TextOptionsOf(&folder, text, *tokenizer, positions, positions_of);
  // The one limit of the rule, for the cut, the refusal and ResolveRealTokens.
  const LengthRule rule = TextLengthRule(&folder, text, *tokenizer, positions, positions_of);
  rules_.max_length = rule.limit;
  rules_.max_length_of = rule.limit_of;
  rules_.truncate = rule.truncate;
  const std::string warning = CsvReadAsLinesWarning(source);
  if (!warning.empty()) events_.Warn(warning);
  TokenBatch all;
  all.offsets.assign(1, 0);
  ForEachTokenizedBlock(*tokenizer, source, o, size_t{8} << 20,
                        [&](const TokenizedLines& lines, size_t) {
                          const TokenBatch& b = lines.batch;
                          const auto base = static_cast<int64_t>(all.ids.size());
                          all.ids.insert(all.ids.end(), b.ids.begin(), b.ids.end());
                          // Token types only for a model that has them; others read a pair as one
                          // text.
                          if (c.token_types >= 2 && !b.types.empty()) {
                            all.types.resize(static_cast<size_t>(base), 0);
                            all.types.insert(all.types.end(), b.types.begin(), b.types.end());
                          }
                          for (int64_t i = 0; i < b.batch; ++i)
                            all.offsets.push_back(base + b.offsets[i + 1]);
                          all.lengths.insert(all.lengths.end(), b.lengths.begin(), b.lengths.end());
                          all.lines.insert(all.lines.end(), b.lines.begin(), b.lines.end());
                          all.batch += b.batch;
                          all.seq = std::max(all.seq, b.seq);
                        });
  if (all.batch == 0) throw Error(SourceName(*r.text_file) + ": no line of text");
  if (!all.types.empty()) all.types.resize(all.ids.size(), 0);
  return all;
}

int64_t EncodeJob::total_work() const { return request_.repeat * real_.total; }

EncodeResult EncodeJob::Run() {
  const bool pooled = OneRowEach(choices_);
  CorpusOptions co;
  co.batch_tokens = request_.batch_tokens;
  co.stage = choices_.stage;
  co.pool = choices_.pool;
  co.normalize = choices_.normalize;
  co.sentence_dense = choices_.sentence_dense;
  Output out;
  out.corpus = std::make_unique<CorpusEncoder>(*encoder_, co);
  const int64_t d = out.corpus->width();  // values a row
  const int64_t longest = *std::max_element(real_.lengths.begin(), real_.lengths.end());

  EncodeResult result;
  result.batch_tokens = out.corpus->BudgetFor(longest, real_.total);
  // The output, written batch by batch as they finish, each line at its place.
  out.shape = {tokens_.batch, tokens_.seq, d};
  if (pooled) out.shape = {tokens_.batch, d};
  if (choices_.packed) out.shape = {real_.total, d};
  out.offsets.assign(static_cast<size_t>(tokens_.batch) + 1, 0);
  for (int64_t b = 0; b < tokens_.batch; ++b)
    out.offsets[b + 1] = out.offsets[b] + real_.lengths[b];
  if (IsCsv(request_.output)) {  // rows in order, so held until the last batch
    CheckAllocation(SaturatingMul(static_cast<uint64_t>(tokens_.batch * d), sizeof(float)),
                    request_.output + ": the CSV rows");
    out.csv_rows.resize(static_cast<size_t>(tokens_.batch * d));
  } else if (!request_.output.empty()) {
    out.writer = std::make_unique<NpyWriter>(request_.output, out.shape);
  }

  result.first_rows.resize(static_cast<size_t>(2 * d));
  std::vector<double> seconds;
  for (int64_t run = 0; run < request_.repeat; ++run) {
    const double t0 = Now();
    RunOnce(run, out, result);
    seconds.push_back(Now() - t0);
  }
  if (out.writer) Commit(out);
  if (!out.csv_rows.empty()) WriteCsv(out);

  result.model_name = model_name_;
  result.config = encoder_->config();
  result.precision = choices_.precision;
  result.weight_bytes = encoder_->WeightBytes();
  result.batch = tokens_.batch;
  result.seq_len = tokens_.seq;
  result.real_tokens = real_.total;
  result.first_length = real_.lengths[0];
  result.pool = choices_.pool;
  result.pool_option = choices_.pool_option;
  result.normalize = choices_.normalize;
  result.dense = choices_.sentence_dense;
  result.truncate = rules_.truncate;
  result.max_length = rules_.max_length;
  result.max_length_of = rules_.max_length ? rules_.max_length_of : "";
  result.layout = pooled ? "pooled" : request_.layout;
  result.shape = out.shape;
  result.seconds = Median(seconds);
  result.tokens_per_s = static_cast<double>(real_.total) / result.seconds;
  result.tokenize_seconds = tokenize_seconds_;
  return result;
}

// One pass over every sequence; the first writes the output and keeps
// sequence 0's first and last rows.
void EncodeJob::RunOnce(int64_t run, Output& out, EncodeResult& result) const {
  const int64_t d = out.corpus->width();  // values a row
  const bool pooled = OneRowEach(choices_);
  result.batches = 0;
  const Spans real{tokens_.offsets.data(), real_.lengths.data(), tokens_.batch, nullptr};
  const int32_t* types = tokens_.types.empty() ? nullptr : tokens_.types.data();
  out.corpus->Run(
      {tokens_.ids.data(), types, real}, out.ws,
      [&](const CorpusBatch& r) {
        ++result.batches;
        if (run > 0) return;
        for (int64_t i = 0; i < r.size; ++i) {
          const int64_t b = r.index[i];
          const int64_t n = pooled ? 1 : r.offsets[i + 1] - r.offsets[i];
          const float* rows = r.rows + (pooled ? i : r.offsets[i]) * d;
          if (b == 0) {
            std::copy(rows, rows + d, result.first_rows.begin());
            std::copy(rows + (n - 1) * d, rows + n * d, result.first_rows.begin() + d);
          }
          if (!out.csv_rows.empty() && run == 0)
            std::copy(rows, rows + d, out.csv_rows.begin() + b * d);
          if (!out.writer) continue;
          const int64_t at = pooled            ? b * d
                             : choices_.packed ? out.offsets[b] * d
                                               : b * tokens_.seq * d;
          out.writer->WriteValues(at, rows, n * d);
        }
      },
      [&](int64_t lines, int64_t tokens) {
        events_.Progress(run * real_.total + tokens,
                         std::to_string(lines) + "/" + std::to_string(tokens_.batch) + " lines");
      });
}

// --output .csv: one line a row, its values as %.9g (float32 read back
// exactly), separated by commas; no header.
void EncodeJob::WriteCsv(const Output& out) const {
  const int64_t d = out.shape.back();
  OutputFile file(request_.output);
  std::string text;
  char buf[32];
  for (int64_t b = 0; b < tokens_.batch; ++b) {
    for (int64_t k = 0; k < d; ++k) {
      const int n = std::snprintf(buf, sizeof buf, k ? ",%.9g" : "%.9g",
                                  static_cast<double>(out.csv_rows[b * d + k]));
      text.append(buf, static_cast<size_t>(n));
    }
    text += '\n';
    if (text.size() >= (size_t{1} << 20)) {
      file.Write(text);
      text.clear();
    }
  }
  file.Write(text);
  file.Commit();
  events_.Wrote(request_.output, "CSV, " + std::to_string(tokens_.batch) + " rows of " +
                                     std::to_string(d) + " values, one row a line");
}

// Completes the output file and the packed offsets beside it, both put in
// place together.
void EncodeJob::Commit(Output& out) const {
  if (choices_.packed) {
    OutputFile offsets(choices_.offsets_path);
    WriteNpyInt64(offsets, {tokens_.batch + 1}, out.offsets.data());
    CommitTogether({&out.writer->file(), &offsets});
  } else {
    out.writer->Commit();
  }
  std::string what = "float32 [" + Dims(out.shape) + "], ";
  switch (choices_.stage) {
    case EncoderStage::kEmbeddings:
      what += "embeddings";
      break;
    case EncoderStage::kFinal:
      what += "final hidden states";
      break;
    case EncoderStage::kPooler:
      what += "pooler output, one row a line";
      break;
    case EncoderStage::kLogits:
      what += "logits, one row a line";
      break;
  }
  if (choices_.pool != Pooling::kNone) {
    what += std::string(", ") + ToString(choices_.pool) + " pooled" +
            (choices_.sentence_dense ? ", Dense" : "") + (choices_.normalize ? ", normalized" : "");
  }
  if (choices_.packed) what += ", real tokens packed";
  events_.Wrote(request_.output, what);
  if (choices_.packed) {
    events_.Wrote(choices_.offsets_path, "int64 [" + std::to_string(tokens_.batch + 1) +
                                             "], line i in rows offsets[i] .. offsets[i + 1]");
  }
}

}  // namespace phasor

// phasor encode: run the encoder on token ids.
#include <sys/resource.h>
#include <sys/stat.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>

#include "engine/cpu.h"
#include "engine/finite.h"
#include "engine/memory_limit.h"
#include "engine/npy.h"
#include "engine/parallel.h"
#include "engine/size_limits.h"
#include "models/corpus.h"
#include "models/encoder.h"
#include "models/input_rules.h"
#include "models/tokens.h"
#include "models/toy.h"
#include "tools/cli_util.h"
#include "tools/commands.h"
#include "tools/progress.h"
#include "tools/sizes.h"

namespace phasor::cli {
namespace {

struct EncodeArgs {
  std::string model;
  std::string tokens;
  std::string tokens_file;
  std::string output;
  std::string offsets;
  std::string layout = "padded";
  std::string stage = "final";
  std::string pe_mode;
  std::string precision = "fp32";
  std::string pool = "none";
  bool normalize = false;
  int64_t batch_tokens = 0;
  int64_t threads = 0;
  int64_t repeat = 1;
  bool json = false;
  const CLI::Option* tokens_opt = nullptr;
  const CLI::Option* tokens_file_opt = nullptr;
};

// The offsets file beside a packed output: OUT.npy -> OUT.offsets.npy.
std::string OffsetsPath(const EncodeArgs& a) {
  if (!a.offsets.empty()) return a.offsets;
  return a.output.substr(0, a.output.size() - 4) + ".offsets.npy";
}

void RunEncode(const EncodeArgs& a) {
  if ((a.tokens_opt->count() > 0) == (a.tokens_file_opt->count() > 0)) {
    throw UsageError("give exactly one of --tokens and --tokens-file");
  }
  if (a.stage != "final" && a.stage != "embeddings") {
    throw UsageError("--stage must be 'embeddings' or 'final', got '" + a.stage + "'");
  }
  if (a.layout != "padded" && a.layout != "packed") {
    throw UsageError("--layout must be 'padded' or 'packed', got '" + a.layout + "'");
  }
  CheckRange("--threads", a.threads, 0, 1024);
  CheckRange("--repeat", a.repeat, 1, 1000000);
  CheckRange("--batch-tokens", a.batch_tokens, 0, kMaxBatchTokens);
  std::optional<PeMode> mode;
  if (!a.pe_mode.empty()) {
    try {
      mode = ParsePeMode(a.pe_mode);
    } catch (const Error& e) {
      throw UsageError(std::string("--pe-mode: ") + e.what());
    }
  }
  Precision precision = Precision::kFp32;
  try {
    precision = ParsePrecision(a.precision);
  } catch (const Error& e) {
    throw UsageError(std::string("--precision: ") + e.what());
  }
  Pooling pool = Pooling::kNone;
  try {
    pool = ParsePooling(a.pool);
  } catch (const Error& e) {
    throw UsageError(std::string("--pool: ") + e.what());
  }
  if (a.normalize && pool == Pooling::kNone) throw UsageError("--normalize needs --pool");
  const bool packed = a.layout == "packed";
  if (packed && pool != Pooling::kNone) {
    throw UsageError("--layout packed and --pool do not go together: pooled rows are one a line");
  }
  if (!a.offsets.empty() && !packed) throw UsageError("--offsets needs --layout packed");
  // Output paths are checked before anything is loaded or computed.
  if (!a.output.empty()) {
    OutputFormat("--output", a.output, {".npy"});
    if (packed) OutputFormat("--offsets", OffsetsPath(a), {".npy"});
    CheckWritable(a.output);
    if (packed) CheckWritable(OffsetsPath(a));
  } else if (!a.offsets.empty()) {
    throw UsageError("--offsets needs --output");
  }
  SetNumThreads(static_cast<int>(a.threads));

  std::unique_ptr<Encoder> enc;
  std::string model_name;
  if (a.model.empty()) {
    ModelConfig c = ToyConfig();
    if (mode) c.positional.mode = *mode;
    enc = std::make_unique<Encoder>(c, ToyWeights(c), precision);
    model_name = "built-in toy";
  } else {
    enc = Encoder::Load(a.model, mode, precision);
    model_name = a.model;
    for (const std::string& w : enc->LoadWarnings()) std::cerr << "phasor: warning: " << w << "\n";
  }
  const ModelConfig& c = enc->config();
  const int64_t d = c.d_model;
  const bool from_file = a.tokens_file_opt->count() > 0;
  const std::string source = from_file ? a.tokens_file : std::string("--tokens");
  const TokenBatch tb = from_file ? LoadTokens(a.tokens_file, c.pad_token_id)
                                  : ParseTokens(a.tokens, source, c.pad_token_id);
  CheckTokenIds(tb, c.vocab_size, source);  // naming the file's line and token
  const EncoderStage stage = a.stage == "final" ? EncoderStage::kFinal : EncoderStage::kEmbeddings;
  // The tokens encoded: each line less its trailing pad ids (models/input_rules.h).
  SequenceRules rules;
  rules.pad_id = c.pad_token_id;
  rules.padded_output = !packed && pool == Pooling::kNone;
  rules.unit = "line";
  const RealTokens real = ResolveRealTokens(
      tb.ids.data(), tb.offsets.data(), tb.lengths.data(), tb.batch, rules, source,
      [&](int64_t b) { return source + ": line " + std::to_string(tb.lines[b]); });
  if (!real.warning.empty()) std::cerr << "phasor: warning: " << real.warning << "\n";

  CorpusOptions co;
  co.batch_tokens = a.batch_tokens;
  co.stage = stage;
  co.pool = pool;
  co.normalize = a.normalize;
  const CorpusEncoder corpus(*enc, co);
  const int64_t longest = *std::max_element(real.lengths.begin(), real.lengths.end());
  const int64_t budget = corpus.BudgetFor(longest, real.total);

  // The output, written batch by batch as they finish, each line at its place.
  std::vector<int64_t> shape = {tb.batch, tb.seq, d};
  if (pool != Pooling::kNone) shape = {tb.batch, d};
  if (packed) shape = {real.total, d};
  std::vector<int64_t> out_offsets(static_cast<size_t>(tb.batch) + 1, 0);  // packed rows
  for (int64_t b = 0; b < tb.batch; ++b) out_offsets[b + 1] = out_offsets[b] + real.lengths[b];
  std::unique_ptr<NpyWriter> writer;
  if (!a.output.empty()) writer = std::make_unique<NpyWriter>(a.output, shape);

  CorpusWorkspace ws;
  std::vector<double> seconds;
  std::vector<float> first_rows(static_cast<size_t>(2 * d));  // line 1's first and last rows
  int64_t batches = 0;
  Progress progress(a.repeat * real.total, "tokens", !a.json);
  for (int64_t run = 0; run < a.repeat; ++run) {
    const double t0 = Now();
    batches = 0;
    corpus.Run(
        tb.ids.data(), tb.offsets.data(), real.lengths.data(), tb.batch, ws,
        [&](const CorpusBatch& r) {
          ++batches;
          if (run > 0) return;
          for (int64_t i = 0; i < r.size; ++i) {
            const int64_t b = r.index[i];
            const int64_t n = pool != Pooling::kNone ? 1 : r.offsets[i + 1] - r.offsets[i];
            const float* rows = r.rows + (pool != Pooling::kNone ? i : r.offsets[i]) * d;
            if (b == 0) {
              std::copy(rows, rows + d, first_rows.begin());
              std::copy(rows + (n - 1) * d, rows + n * d, first_rows.begin() + d);
            }
            if (!writer) continue;
            const int64_t at = pool != Pooling::kNone ? b * d
                               : packed               ? out_offsets[b] * d
                                                      : b * tb.seq * d;
            writer->WriteValues(at, rows, n * d);
          }
        },
        [&](int64_t lines, int64_t tokens) {
          progress.Update(run * real.total + tokens,
                          std::to_string(lines) + "/" + std::to_string(tb.batch) + " lines");
        });
    seconds.push_back(Now() - t0);
  }
  progress.Finish();
  if (writer) {
    writer->Commit();
    std::string what = "float32 [";
    for (size_t k = 0; k < shape.size(); ++k) what += (k ? ", " : "") + std::to_string(shape[k]);
    what += "], ";
    what += stage == EncoderStage::kFinal ? "final hidden states" : "embeddings";
    if (pool != Pooling::kNone) {
      what += std::string(", ") + ToString(pool) + " pooled" + (a.normalize ? ", normalized" : "");
    }
    if (packed) what += ", real tokens packed";
    ReportWrote(a.output, what);
    if (packed) {
      WriteNpyInt64(OffsetsPath(a), {tb.batch + 1}, out_offsets.data());
      ReportWrote(OffsetsPath(a), "int64 [" + std::to_string(tb.batch + 1) +
                                      "], line i in rows offsets[i] .. offsets[i + 1]");
    }
  }

  const double s = Median(seconds);
  const double tokens_per_s = static_cast<double>(real.total) / s;
  if (a.json) {
    nlohmann::json j = {{"model", model_name},
                        {"batch", tb.batch},
                        {"seq_len", tb.seq},
                        {"d_model", d},
                        {"n_layers", c.n_layers},
                        {"stage", a.stage},
                        {"layout", pool != Pooling::kNone ? "pooled" : a.layout},
                        {"pool", ToString(pool)},
                        {"normalize", a.normalize},
                        {"pe_mode", ToString(c.positional.mode)},
                        {"precision", ToString(precision)},
                        {"weight_bytes", enc->WeightBytes()},
                        {"threads", NumThreads()},
                        {"repeat", a.repeat},
                        {"real_tokens", real.total},
                        {"batch_tokens", budget},
                        {"batches", batches},
                        {"seconds", s},
                        {"tokens_per_s", tokens_per_s}};
    j["isa"] = IsaName(ActiveIsa());
    if (!a.output.empty()) j["output"] = a.output;
    struct rusage usage {};
    if (getrusage(RUSAGE_SELF, &usage) == 0) j["peak_rss_bytes"] = int64_t{usage.ru_maxrss} * 1024;
    std::cout << j.dump() << "\n";
    return;
  }
  std::printf(
      "model      %s: vocab %lld, d_model %lld, %lld heads, %lld layers, d_ff %lld, %s, %s\n",
      model_name.c_str(), static_cast<long long>(c.vocab_size), static_cast<long long>(d),
      static_cast<long long>(c.n_heads), static_cast<long long>(c.n_layers),
      static_cast<long long>(c.d_ff), ToString(c.activation), c.norm_first ? "pre-LN" : "post-LN");
  std::printf("positional %s, PE mode %s\n", ToString(c.positional.kind),
              ToString(c.positional.mode));
  std::printf("precision  %s (weights %s bytes)\n", ToString(precision),
              FormatSi(static_cast<double>(enc->WeightBytes())).c_str());
  std::printf("input      %lld sequence(s), longest %lld tokens (%lld real in all)\n",
              static_cast<long long>(tb.batch), static_cast<long long>(tb.seq),
              static_cast<long long>(real.total));
  std::printf("batches    %lld of at most %lld real tokens\n", static_cast<long long>(batches),
              static_cast<long long>(budget));
  std::string dims;
  for (size_t k = 0; k < shape.size(); ++k) dims += (k ? ", " : "") + std::to_string(shape[k]);
  std::printf(
      "output     %s%s%s [%s]%s%s\n", a.stage.c_str(),
      pool != Pooling::kNone ? (std::string(", ") + ToString(pool) + " pooled").c_str() : "",
      packed ? ", packed" : "", dims.c_str(), a.output.empty() ? "" : " -> ", a.output.c_str());
  std::printf("time       %.3f ms (median of %lld), %s tokens/s (real tokens), %s\n", s * 1e3,
              static_cast<long long>(a.repeat), FormatSi(tokens_per_s).c_str(),
              Plural(NumThreads(), "thread").c_str());
  const int64_t show = std::min<int64_t>(4, d);
  const bool one_row = pool != Pooling::kNone || real.lengths[0] == 1;
  for (int64_t r = 0; r < (one_row ? 1 : 2); ++r) {
    if (pool != Pooling::kNone) {
      std::printf("seq 0, %s:", ToString(pool));
    } else {
      std::printf("seq 0, token %lld:", static_cast<long long>(r == 0 ? 0 : real.lengths[0] - 1));
    }
    for (int64_t k = 0; k < show; ++k) std::printf(" %9.5f", first_rows[r * d + k]);
    std::printf(" ...\n");
  }
}

}  // namespace

void AddEncodeCommand(CLI::App& app) {
  auto args = std::make_shared<EncodeArgs>();
  CLI::App* cmd = app.add_subcommand("encode", "Run the encoder on token ids");
  cmd->add_option(
      "--model", args->model,
      "Model directory (config.json, model.safetensors); default: the built-in toy model");
  args->tokens_opt =
      cmd->add_option("--tokens", args->tokens, "One sequence of ids, e.g. \"3 14 15\"");
  args->tokens_file_opt = cmd->add_option(
      "--tokens-file", args->tokens_file,
      "A file with one sequence a line, ids separated by spaces or commas; ragged lines "
      "are padded and masked (needs pad_token_id)");
  cmd->add_option("--output", args->output,
                  "FILE.npy: float32 [batch, seq, d_model] (padding 0), or with --layout packed "
                  "[real tokens, d_model], or with --pool [batch, d_model]; written as batches "
                  "finish");
  cmd->add_option("--layout", args->layout,
                  "padded ([batch, seq, d_model]) or packed (the real tokens' rows back to back, "
                  "and their offsets in --offsets)")
      ->capture_default_str();
  cmd->add_option("--offsets", args->offsets,
                  "With --layout packed: FILE.npy for int64 [batch + 1], line i in rows "
                  "offsets[i] .. offsets[i + 1] (default: OUTPUT's name with .offsets.npy)");
  cmd->add_option("--pool", args->pool,
                  "One vector a line: mean or max over its real tokens, or cls (its first); "
                  "none: every row")
      ->capture_default_str();
  cmd->add_flag("--normalize", args->normalize, "With --pool: scale each vector to unit L2 norm");
  AddSizeOption(cmd, "--batch-tokens", &args->batch_tokens,
                "Real tokens encoded at once at most; memory is bounded by it (0: 2K, or the "
                "longest line if longer)");
  cmd->add_option("--stage", args->stage, "embeddings (the encoder's input) or final")
      ->capture_default_str();
  cmd->add_option("--pe-mode", args->pe_mode, "cached, on_the_fly or auto (default: the config's)");
  cmd->add_option("--precision", args->precision,
                  "Number format of the weight products: fp32, bf16 or int8")
      ->capture_default_str();
  AddSizeOption(cmd, "--threads", &args->threads, "Threads (0: all cores)");
  AddSizeOption(cmd, "--repeat", &args->repeat, "Runs; the median time is reported");
  cmd->add_flag("--json", args->json, "Print one JSON object");
  cmd->callback([args] { RunEncode(*args); });
}

}  // namespace phasor::cli

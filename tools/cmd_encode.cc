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
#include "models/encoder.h"
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
  std::string stage = "final";
  std::string pe_mode;
  std::string precision = "fp32";
  int64_t threads = 0;
  int64_t repeat = 1;
  bool json = false;
  const CLI::Option* tokens_opt = nullptr;
  const CLI::Option* tokens_file_opt = nullptr;
};

// One warning for the lines whose trailing pad ids are taken as padding;
// Error for a line that is nothing but padding.
void CheckPadding(const TokenBatch& tb, const std::vector<int64_t>& real, int32_t pad_id,
                  const std::string& source, EncoderStage stage) {
  int64_t lines = 0, pads = 0, first = -1;
  for (int64_t b = 0; b < tb.batch; ++b) {
    if (real[b] == 0) {
      throw Error(source + ": line " + std::to_string(tb.lines[b]) + " holds only the pad id " +
                  std::to_string(pad_id) + " (pad_token_id): nothing to encode");
    }
    if (real[b] < tb.lengths[b]) {
      if (first < 0) first = b;
      ++lines;
      pads += tb.lengths[b] - real[b];
    }
  }
  if (lines == 0) return;
  const std::string what = stage == EncoderStage::kFinal
                               ? "taken as padding: masked, and their output rows are 0"
                               : "taken as padding";
  std::cerr << "phasor: warning: " << source << ": line " << tb.lines[first] << " ends in "
            << Plural(tb.lengths[first] - real[first], "pad id") << " (pad_token_id " << pad_id
            << ")";
  if (lines > 1) {
    std::cerr << ", and " << Plural(lines - 1, "more line") << " (" << Plural(pads, "pad id")
              << " in all)";
  }
  std::cerr << ", " << what << "\n";
}

void RunEncode(const EncodeArgs& a) {
  if ((a.tokens_opt->count() > 0) == (a.tokens_file_opt->count() > 0)) {
    throw UsageError("give exactly one of --tokens and --tokens-file");
  }
  if (!a.output.empty()) OutputFormat("--output", a.output, {".npy"});
  if (a.stage != "final" && a.stage != "embeddings") {
    throw UsageError("--stage must be 'embeddings' or 'final', got '" + a.stage + "'");
  }
  CheckRange("--threads", a.threads, 0, 1024);
  CheckRange("--repeat", a.repeat, 1, 1000000);
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
    const std::string& non_finite = enc->non_finite_warning();
    if (!non_finite.empty()) std::cerr << "phasor: warning: " << non_finite << "\n";
    // A tensor nothing asked for is most often a misspelt name.
    const auto unused = enc->weights().UnusedNames();
    if (!unused.empty()) {
      std::cerr << "phasor: warning: " << enc->weights().source() << ": " << unused.size()
                << " tensor(s) not used by the model, first '" << unused[0] << "'\n";
    }
  }
  const ModelConfig& c = enc->config();
  const bool from_file = a.tokens_file_opt->count() > 0;
  const std::string source = from_file ? a.tokens_file : std::string("--tokens");
  const TokenBatch tb = from_file ? LoadTokens(a.tokens_file, c.pad_token_id)
                                  : ParseTokens(a.tokens, source, c.pad_token_id);
  CheckTokenIds(tb, c.vocab_size, source);  // naming the file's line and token
  const EncoderStage stage = a.stage == "final" ? EncoderStage::kFinal : EncoderStage::kEmbeddings;
  // The tokens encoded: each line less its trailing pad ids, as Forward masks them.
  const std::vector<int64_t> real_lengths = RealLengths(tb, c.pad_token_id);
  if (c.pad_token_id) CheckPadding(tb, real_lengths, *c.pad_token_id, source, stage);
  // Positions and sizes are checked before anything is allocated for the batch.
  enc->CheckInput(tb.ids.data(), tb.batch, tb.seq);
  const int64_t tokens = tb.batch * tb.seq;
  const uint64_t out_bytes =
      SaturatingMul(static_cast<uint64_t>(tokens), 4 * static_cast<uint64_t>(c.d_model));
  CheckAllocation(enc->WorkspaceBytes(tokens) + out_bytes,
                  "a batch of " + std::to_string(tb.batch) + " x " + std::to_string(tb.seq) +
                      " tokens (workspace and output)");
  EncoderWorkspace ws = enc->MakeWorkspace(tokens);
  AlignedFloats out(static_cast<size_t>(tokens * c.d_model));  // [batch·seq, d_model]
  std::vector<double> seconds;
  // Layers done, over every run: the unit of progress a long sequence shows.
  const int64_t layers = std::max<int64_t>(c.n_layers, 1);
  Progress progress(a.repeat * layers, "layers", !a.json);
  int64_t run = 0;
  const std::function<void(int64_t)> on_layer = [&](int64_t done) {
    progress.Update(run * layers + done);
  };
  for (run = 0; run < a.repeat; ++run) {
    const double t0 = Now();
    enc->Forward(tb.ids.data(), tb.batch, tb.seq, tb.lengths.data(), stage, out.data(), ws,
                 on_layer);
    seconds.push_back(Now() - t0);
  }
  progress.Finish();
  if (!a.output.empty()) {
    WriteNpy(a.output, {tb.batch, tb.seq, c.d_model}, out.data());
    ReportWrote(a.output,
                "float32 [" + std::to_string(tb.batch) + ", " + std::to_string(tb.seq) + ", " +
                    std::to_string(c.d_model) + "], " +
                    (stage == EncoderStage::kFinal ? "final hidden states" : "embeddings"));
  }

  const double s = Median(seconds);
  const int64_t real = std::accumulate(real_lengths.begin(), real_lengths.end(), int64_t{0});
  const double tokens_per_s = static_cast<double>(real) / s;
  if (a.json) {
    nlohmann::json j = {{"model", model_name},
                        {"batch", tb.batch},
                        {"seq_len", tb.seq},
                        {"d_model", c.d_model},
                        {"n_layers", c.n_layers},
                        {"stage", a.stage},
                        {"pe_mode", ToString(c.positional.mode)},
                        {"precision", ToString(precision)},
                        {"weight_bytes", enc->WeightBytes()},
                        {"threads", NumThreads()},
                        {"repeat", a.repeat},
                        {"real_tokens", real},
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
      model_name.c_str(), static_cast<long long>(c.vocab_size), static_cast<long long>(c.d_model),
      static_cast<long long>(c.n_heads), static_cast<long long>(c.n_layers),
      static_cast<long long>(c.d_ff), ToString(c.activation), c.norm_first ? "pre-LN" : "post-LN");
  std::printf("positional %s, PE mode %s\n", ToString(c.positional.kind),
              ToString(c.positional.mode));
  std::printf("precision  %s (weights %s bytes)\n", ToString(precision),
              FormatSi(static_cast<double>(enc->WeightBytes())).c_str());
  std::printf("input      %lld sequence(s) x %lld tokens (%lld real)\n",
              static_cast<long long>(tb.batch), static_cast<long long>(tb.seq),
              static_cast<long long>(real));
  std::printf("output     %s [%lld, %lld, %lld]%s%s\n", a.stage.c_str(),
              static_cast<long long>(tb.batch), static_cast<long long>(tb.seq),
              static_cast<long long>(c.d_model), a.output.empty() ? "" : " -> ", a.output.c_str());
  std::printf("time       %.3f ms (median of %lld), %s tokens/s (real tokens), %s\n", s * 1e3,
              static_cast<long long>(a.repeat), FormatSi(tokens_per_s).c_str(),
              Plural(NumThreads(), "thread").c_str());
  const int64_t show = std::min<int64_t>(4, c.d_model);
  for (int64_t j : {int64_t{0}, real_lengths[0] - 1}) {
    std::printf("seq 0, token %lld:", static_cast<long long>(j));
    for (int64_t k = 0; k < show; ++k) std::printf(" %9.5f", out[j * c.d_model + k]);
    std::printf(" ...\n");
    if (real_lengths[0] == 1) break;
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
                  "FILE.npy: float32 [batch, seq, d_model]; padded positions are 0 in stage final");
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

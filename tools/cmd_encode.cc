// phasor encode: run the encoder on token ids.
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

namespace phasor::cli {
namespace {

struct EncodeArgs {
  std::string model;
  std::string tokens;
  std::string tokens_file;
  std::string output;
  std::string stage = "final";
  std::string pe_mode;
  int threads = 0;
  int repeat = 1;
  bool json = false;
};

void RunEncode(const EncodeArgs& a) {
  if (a.tokens.empty() == a.tokens_file.empty()) {
    throw UsageError("give exactly one of --tokens and --tokens-file");
  }
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
  SetNumThreads(a.threads);

  std::unique_ptr<Encoder> enc;
  std::string model_name;
  if (a.model.empty()) {
    ModelConfig c = ToyConfig();
    if (mode) c.positional.mode = *mode;
    enc = std::make_unique<Encoder>(c, ToyWeights(c));
    model_name = "built-in toy";
  } else {
    enc = Encoder::Load(a.model, mode);
    model_name = a.model;
    const std::string non_finite = NonFiniteWarning(enc->weights());
    if (!non_finite.empty()) std::cerr << "phasor: warning: " << non_finite << "\n";
    // A tensor nothing asked for is most often a misspelt name.
    const auto unused = enc->weights().UnusedNames();
    if (!unused.empty()) {
      std::cerr << "phasor: warning: " << enc->weights().source() << ": " << unused.size()
                << " tensor(s) not used by the model, first '" << unused[0] << "'\n";
    }
  }
  const ModelConfig& c = enc->config();
  const TokenBatch tb = a.tokens.empty() ? LoadTokens(a.tokens_file, c.pad_token_id)
                                         : ParseTokens(a.tokens, "--tokens", c.pad_token_id);
  // Ids, positions and sizes are checked before anything is allocated for the batch.
  enc->CheckInput(tb.ids.data(), tb.batch, tb.seq);
  const int64_t tokens = tb.batch * tb.seq;
  const EncoderStage stage = a.stage == "final" ? EncoderStage::kFinal : EncoderStage::kEmbeddings;
  const uint64_t out_bytes =
      SaturatingMul(static_cast<uint64_t>(tokens), 4 * static_cast<uint64_t>(c.d_model));
  CheckAllocation(enc->WorkspaceBytes(tokens) + out_bytes,
                  "a batch of " + std::to_string(tb.batch) + " x " + std::to_string(tb.seq) +
                      " tokens (workspace and output)");
  EncoderWorkspace ws = enc->MakeWorkspace(tokens);
  AlignedFloats out(static_cast<size_t>(tokens * c.d_model));  // [batch·seq, d_model]
  std::vector<double> seconds;
  for (int r = 0; r < a.repeat; ++r) {
    const double t0 = Now();
    enc->Forward(tb.ids.data(), tb.batch, tb.seq, tb.lengths.data(), stage, out.data(), ws);
    seconds.push_back(Now() - t0);
  }
  if (!a.output.empty()) WriteNpy(a.output, {tb.batch, tb.seq, c.d_model}, out.data());

  const double s = Median(seconds);
  const int64_t real = std::accumulate(tb.lengths.begin(), tb.lengths.end(), int64_t{0});
  const double tokens_per_s = static_cast<double>(real) / s;
  if (a.json) {
    nlohmann::json j = {{"model", model_name},
                        {"batch", tb.batch},
                        {"seq_len", tb.seq},
                        {"d_model", c.d_model},
                        {"n_layers", c.n_layers},
                        {"stage", a.stage},
                        {"pe_mode", ToString(c.positional.mode)},
                        {"threads", NumThreads()},
                        {"repeat", a.repeat},
                        {"seconds", s},
                        {"tokens_per_s", tokens_per_s}};
    j["isa"] = IsaName(ActiveIsa());
    if (!a.output.empty()) j["output"] = a.output;
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
  std::printf("input      %lld sequence(s) x %lld tokens (%lld real)\n",
              static_cast<long long>(tb.batch), static_cast<long long>(tb.seq),
              static_cast<long long>(real));
  std::printf("output     %s [%lld, %lld, %lld]%s%s\n", a.stage.c_str(),
              static_cast<long long>(tb.batch), static_cast<long long>(tb.seq),
              static_cast<long long>(c.d_model), a.output.empty() ? "" : " -> ", a.output.c_str());
  std::printf("time       %.3f ms (median of %d), %.0f tokens/s, %d threads\n", s * 1e3, a.repeat,
              tokens_per_s, NumThreads());
  const int64_t show = std::min<int64_t>(4, c.d_model);
  for (int64_t j : {int64_t{0}, tb.lengths[0] - 1}) {
    std::printf("seq 0, token %lld:", static_cast<long long>(j));
    for (int64_t k = 0; k < show; ++k) std::printf(" %9.5f", out[j * c.d_model + k]);
    std::printf(" ...\n");
    if (tb.lengths[0] == 1) break;
  }
}

}  // namespace

void AddEncodeCommand(CLI::App& app) {
  auto args = std::make_shared<EncodeArgs>();
  CLI::App* cmd = app.add_subcommand("encode", "Run the encoder on token ids");
  cmd->add_option(
      "--model", args->model,
      "Model directory (config.json, model.safetensors); default: the built-in toy model");
  cmd->add_option("--tokens", args->tokens, "One sequence of ids, e.g. \"3 14 15\"");
  cmd->add_option(
      "--tokens-file", args->tokens_file,
      "A file with one sequence a line, ids separated by spaces or commas; ragged lines "
      "are padded and masked (needs pad_token_id)");
  cmd->add_option("--output", args->output,
                  "Write NPY float32 [batch, seq, d_model]; padded positions are 0 in stage final");
  cmd->add_option("--stage", args->stage, "embeddings (the encoder's input) or final")
      ->capture_default_str();
  cmd->add_option("--pe-mode", args->pe_mode, "cached, on_the_fly or auto (default: the config's)");
  cmd->add_option("--threads", args->threads, "Threads (0: all cores)")->capture_default_str();
  cmd->add_option("--repeat", args->repeat, "Runs; the median time is reported")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print one JSON object");
  cmd->callback([args] { RunEncode(*args); });
}

}  // namespace phasor::cli

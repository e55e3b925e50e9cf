// phasor make-toy: write the toy model as a model directory.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>

#include "engine/safetensors.h"
#include "models/toy.h"
#include "tools/cli_util.h"
#include "tools/commands.h"

namespace phasor::cli {
namespace {

struct ToyArgs {
  std::string out;
  uint64_t seed = 1;
  ModelConfig config = ToyConfig();
  std::string activation = "relu";
};

void RunMakeToy(ToyArgs a) {
  ModelConfig& c = a.config;
  if (a.activation == "relu") {
    c.activation = Activation::kRelu;
  } else if (a.activation == "gelu") {
    c.activation = Activation::kGelu;
  } else {
    throw UsageError("--activation must be relu or gelu, got '" + a.activation + "'");
  }
  try {
    ValidateConfig(c, "make-toy");
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  if (mkdir(a.out.c_str(), 0755) != 0 && errno != EEXIST) {
    throw Error("cannot create directory " + a.out + ": " + std::strerror(errno));
  }
  const Weights w = ToyWeights(c, a.seed);
  SaveSafetensors(a.out + "/model.safetensors", w);
  std::ofstream cfg(a.out + "/config.json");
  cfg << ConfigToJson(c) << "\n";
  if (!cfg) throw Error("cannot write " + a.out + "/config.json");
  std::cerr << "phasor: wrote the toy model (seed " << a.seed << ") to " << a.out << "\n";
}

}  // namespace

void AddMakeToyCommand(CLI::App& app) {
  auto args = std::make_shared<ToyArgs>();
  CLI::App* cmd =
      app.add_subcommand("make-toy", "Write the built-in toy model as a model directory");
  cmd->add_option("--out", args->out, "Directory to write (created if missing)")->required();
  cmd->add_option("--seed", args->seed, "Weight seed (the built-in model uses 1)")
      ->capture_default_str();
  cmd->add_option("--vocab", args->config.vocab_size, "Vocabulary size")->capture_default_str();
  cmd->add_option("--d-model", args->config.d_model, "Model width")->capture_default_str();
  cmd->add_option("--n-heads", args->config.n_heads, "Attention heads")->capture_default_str();
  cmd->add_option("--n-layers", args->config.n_layers, "Layers")->capture_default_str();
  cmd->add_option("--d-ff", args->config.d_ff, "Feed-forward width")->capture_default_str();
  cmd->add_option("--activation", args->activation, "relu or gelu")->capture_default_str();
  cmd->add_flag("--norm-first", args->config.norm_first, "Pre-LN layers");
  cmd->add_flag("--final-norm", args->config.final_norm, "A final LayerNorm");
  cmd->callback([args] { RunMakeToy(*args); });
}

}  // namespace phasor::cli

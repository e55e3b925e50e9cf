// phasor make-toy: write the toy model as a model directory.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <utility>

#include "commands/option_checks.h"
#include "engine/error.h"
#include "engine/output_file.h"
#include "engine/safetensors.h"
#include "models/toy.h"
#include "tools/cli_util.h"
#include "tools/commands.h"
#include "tools/sizes.h"

namespace phasor::cli {
namespace {

struct ToyArgs {
  std::string out;
  uint64_t seed = 1;
  ModelConfig config = ToyConfig();
  std::string activation = "relu";
  bool force = false;
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
  CheckVocab(c.vocab_size, c.d_model);
  try {
    ValidateConfig(c, "make-toy");
  } catch (const Error& e) {
    // "make-toy: key 'd_model': ..." is about the option --d-model.
    std::string what = e.what();
    for (const auto& [key, flag] : {std::pair<std::string, std::string>{"vocab_size", "--vocab"},
                                    {"d_model", "--d-model"},
                                    {"n_heads", "--n-heads"},
                                    {"n_layers", "--n-layers"},
                                    {"d_ff", "--d-ff"}}) {
      const std::string prefix = "make-toy: key '" + key + "'";
      if (what.rfind(prefix, 0) == 0) what = flag + what.substr(prefix.size());
    }
    throw UsageError(what);
  }
  struct stat st {};
  if (stat(a.out.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw Error("cannot create directory " + a.out + ": not a directory");
    // A model there is not overwritten by accident.
    for (const char* file : {"config.json", "model.safetensors"}) {
      if (!a.force && stat((a.out + "/" + file).c_str(), &st) == 0) {
        throw UsageError("--out " + a.out + " already holds a model (" + file +
                         "); pass --force to overwrite it");
      }
    }
  } else if (mkdir(a.out.c_str(), 0755) != 0) {
    throw Error("cannot create directory " + a.out + ": " + std::strerror(errno));
  }
  const Weights w = ToyWeights(c, a.seed);
  OutputFile weights(a.out + "/model.safetensors");
  WriteSafetensors(weights, w);
  OutputFile config(a.out + "/config.json");
  config.Write(ConfigToJson(c) + "\n");
  CommitTogether({&weights, &config});
  ReportWrote(a.out, "the toy model (seed " + std::to_string(a.seed) +
                         "): config.json and model.safetensors");
}

}  // namespace

void AddMakeToyCommand(CLI::App& app) {
  auto args = std::make_shared<ToyArgs>();
  CLI::App* cmd =
      app.add_subcommand("make-toy", "Write the built-in toy model as a model directory");
  // --output too, the name every other command gives what it writes.
  cmd->add_option("--out,--output", args->out,
                  "Directory to write (created if missing; one holding a model needs --force)")
      ->required();
  cmd->add_option("--seed", args->seed, "Weight seed (the built-in model uses 1)")
      ->capture_default_str();
  AddSizeOption(cmd, "--vocab", &args->config.vocab_size, "Vocabulary size");
  AddSizeOption(cmd, "--d-model", &args->config.d_model, "Model width");
  AddSizeOption(cmd, "--n-heads", &args->config.n_heads, "Attention heads");
  AddSizeOption(cmd, "--n-layers", &args->config.n_layers, "Layers");
  AddSizeOption(cmd, "--d-ff", &args->config.d_ff, "Feed-forward width");
  cmd->add_option("--activation", args->activation, "relu or gelu")->capture_default_str();
  cmd->add_flag("--norm-first", args->config.norm_first, "Pre-LN layers");
  cmd->add_flag("--final-norm", args->config.final_norm, "A final LayerNorm");
  cmd->add_flag("--force", args->force, "Overwrite the model a directory already holds");
  cmd->callback([args] { RunMakeToy(*args); });
}

}  // namespace phasor::cli

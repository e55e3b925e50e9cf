#include "models/sentence_transformers.h"

#include <nlohmann/json.hpp>
#include <vector>

#include "engine/error.h"
#include "engine/json_text.h"
#include "engine/model_folder.h"
#include "engine/safetensors.h"
#include "models/architectures/architecture.h"

namespace phasor {
namespace {

// The mode a 1_Pooling/config.json sets (exactly one).
Pooling PoolingMode(const ModelFolder& folder, const std::string& name) {
  const std::string path = folder.Path(name);
  const nlohmann::json* found = folder.Json(name);
  if (found == nullptr) throw Error(path + ": no such file (its module needs it)");
  const nlohmann::json& cfg = *found;
  if (!cfg.is_object()) throw Error(path + ": expected a JSON object");
  struct Mode {
    const char* key;
    Pooling pooling;  // kNone: not applied by phasor
  };
  static const Mode kModes[] = {{"pooling_mode_cls_token", Pooling::kCls},
                                {"pooling_mode_mean_tokens", Pooling::kMean},
                                {"pooling_mode_max_tokens", Pooling::kMax},
                                {"pooling_mode_mean_sqrt_len_tokens", Pooling::kMeanSqrtLen},
                                {"pooling_mode_lasttoken", Pooling::kLast},
                                {"pooling_mode_weightedmean_tokens", Pooling::kNone}};
  std::vector<const Mode*> set;
  for (const Mode& m : kModes) {
    if (cfg.contains(m.key) && cfg[m.key].is_boolean() && cfg[m.key].get<bool>()) set.push_back(&m);
  }
  if (set.empty()) throw Error(path + ": sets no pooling_mode_* key to true");
  if (set.size() > 1) {
    throw Error(path + ": key '" + set[1]->key + "': a second pooling mode beside '" + set[0]->key +
                "' (their concatenation) is not supported");
  }
  if (set[0]->pooling == Pooling::kNone) {
    throw Error(path + ": key '" + set[0]->key + "': this pooling is not supported");
  }
  if (cfg.contains("include_prompt") && cfg["include_prompt"].is_boolean() &&
      !cfg["include_prompt"].get<bool>()) {
    throw Error(path + ": key 'include_prompt': false is not supported (every token is pooled)");
  }
  return set[0]->pooling;
}

constexpr const char* kDense = "sentence_transformers.models.Dense";

// A Dense module's activation_function, by its torch class.
HeadActivation DenseActivation(const std::string& path, const nlohmann::json& cfg) {
  if (!cfg.contains("activation_function")) return HeadActivation::kTanh;  // Dense's default
  const nlohmann::json& v = cfg["activation_function"];
  const std::string name = v.is_string() ? v.get<std::string>() : v.dump();
  if (name == "torch.nn.modules.activation.Tanh") return HeadActivation::kTanh;
  if (name == "torch.nn.modules.activation.ReLU") return HeadActivation::kRelu;
  if (name == "torch.nn.modules.linear.Identity") return HeadActivation::kIdentity;
  throw Error(path + ": key 'activation_function': '" + json_text::Printable(name, 80) +
              "' is not supported, expected torch.nn.modules.activation.Tanh, "
              "torch.nn.modules.activation.ReLU or torch.nn.modules.linear.Identity");
}

// An integer key of a Dense config.json in [1, 65536].
int64_t DenseSize(const std::string& path, const nlohmann::json& cfg, const char* key) {
  if (!cfg.contains(key) || !cfg[key].is_number_integer()) {
    throw Error(path + ": key '" + key + "': expected an integer");
  }
  const int64_t v = cfg[key].get<int64_t>();
  if (v < 1 || v > 65536) {
    throw Error(path + ": key '" + key + "': " + std::to_string(v) +
                " is out of range, expected 1 to 65536");
  }
  return v;
}

// One Dense module of folder sub: its product appended to config, its
// tensors put into weights as sentence_dense.{i}.
void ReadDense(const ModelFolder& folder, const std::string& sub, ModelConfig& config,
               Weights& weights) {
  const std::string path = folder.Path(sub + "/config.json");
  const nlohmann::json* found = folder.Json(sub + "/config.json");
  if (found == nullptr) throw Error(path + ": no such file (its Dense module needs it)");
  const nlohmann::json& cfg = *found;
  if (!cfg.is_object()) throw Error(path + ": expected a JSON object");
  const int64_t in =
      config.sentence_dense.empty() ? config.d_model : config.sentence_dense.back().out;
  if (DenseSize(path, cfg, "in_features") != in) {
    throw Error(path + ": key 'in_features': " + std::to_string(cfg["in_features"].get<int64_t>()) +
                ", expected " + std::to_string(in) + " (the width of the rows it takes)");
  }
  const int64_t out = DenseSize(path, cfg, "out_features");
  const HeadActivation act = DenseActivation(path, cfg);
  const bool bias = !cfg.contains("bias") || !cfg["bias"].is_boolean() || cfg["bias"].get<bool>();
  Weights module = LoadSafetensors(folder.Path(sub + "/model.safetensors"));
  const std::string to = "sentence_dense." + std::to_string(config.sentence_dense.size()) + ".";
  MoveTensor(module, "linear.weight", to + "weight", {out, in});
  if (bias) {
    MoveTensor(module, "linear.bias", to + "bias", {out});
  } else {
    module.Add(to + "bias", {out}, std::vector<float>(static_cast<size_t>(out), 0.0f));
  }
  weights.Put(to + "weight", module.Take(to + "weight"));
  weights.Put(to + "bias", module.Take(to + "bias"));
  config.sentence_dense.push_back(DenseProduct{out, act});
}

}  // namespace

PoolSpec DeclaredPooling(const ModelFolder& folder) {
  const std::string path = folder.Path("modules.json");
  if (!folder.IsSentenceTransformers()) {
    throw Error(folder.dir() +
                " has no modules.json: --pool model needs a sentence-transformers folder "
                "(or give --pool mean, cls or max)");
  }
  PoolSpec spec;
  bool pooled = false;
  for (const ModelFolder::Module& m : folder.modules()) {
    const std::string& type = m.type;
    if (type == "sentence_transformers.models.Transformer") continue;
    if ((type == kDense && (!pooled || spec.normalize)) ||
        (type == "sentence_transformers.models.Pooling" && pooled)) {
      throw Error(path + ": module '" + type + "' (" + m.path +
                  ") out of the order Pooling, Dense, Normalize is not supported");
    }
    if (type == "sentence_transformers.models.Pooling") {
      spec.pooling = PoolingMode(folder, m.path + "/config.json");
      pooled = true;
    } else if (type == kDense) {
      spec.dense = true;
    } else if (type == "sentence_transformers.models.Normalize") {
      spec.normalize = true;
    } else {
      throw Error(path + ": module '" + type + "' (" + m.path + ") is not supported");
    }
  }
  if (!pooled) throw Error(path + ": declares no Pooling module");
  return spec;
}

void ReadSentenceDense(const ModelFolder& folder, ModelConfig& config, Weights& weights) {
  for (const ModelFolder::Module& m : folder.modules()) {
    if (m.type == kDense) ReadDense(folder, m.path, config, weights);
  }
}

}  // namespace phasor

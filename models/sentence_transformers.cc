#include "models/sentence_transformers.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "engine/error.h"
#include "engine/json_text.h"

namespace phasor {
namespace {

nlohmann::json ReadJson(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw Error("cannot read " + path + ": " +
                (std::filesystem::exists(path, ec) ? "not a regular file" : "no such file"));
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  try {
    return json_text::ParseStrictJson(text.str());
  } catch (const json_text::StructureError& e) {
    throw Error(path + ": " + e.message);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": not valid JSON: " + json_text::Printable(e.what(), 300));
  }
}

// The mode a 1_Pooling/config.json sets (exactly one).
Pooling PoolingMode(const std::string& path) {
  const nlohmann::json cfg = ReadJson(path);
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

}  // namespace

PoolSpec DeclaredPooling(const std::string& dir) {
  const std::string path = dir + "/modules.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw Error(dir +
                " has no modules.json: --pool model needs a sentence-transformers folder "
                "(or give --pool mean, cls or max)");
  }
  const nlohmann::json modules = ReadJson(path);
  if (!modules.is_array()) throw Error(path + ": expected a JSON array of modules");
  PoolSpec spec;
  bool pooled = false;
  for (const nlohmann::json& m : modules) {
    if (!m.is_object() || !m.contains("type") || !m["type"].is_string()) {
      throw Error(path + ": expected modules with a string 'type'");
    }
    const std::string type = m["type"].get<std::string>();
    const std::string sub =
        m.contains("path") && m["path"].is_string() ? m["path"].get<std::string>() : "";
    if (type == "sentence_transformers.models.Transformer") continue;
    if (type == "sentence_transformers.models.Pooling") {
      spec.pooling = PoolingMode(dir + "/" + sub + "/config.json");
      pooled = true;
    } else if (type == "sentence_transformers.models.Normalize") {
      spec.normalize = true;
    } else {
      throw Error(path + ": module '" + type + "' (" + sub + ") is not supported yet");
    }
  }
  if (!pooled) throw Error(path + ": declares no Pooling module");
  return spec;
}

}  // namespace phasor

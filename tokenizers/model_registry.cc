#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "engine/error.h"
#include "tokenizers/kinds.h"
#include "tokenizers/model.h"

namespace phasor::tokenizers {
namespace {

// Every model kind tokenizer.json may name, by its "type".
constexpr Kinds<ModelBuilder, 3> kModels = {{
    {"WordPiece", MakeWordPiece},
    {"BPE", MakeBpe},
    {"Unigram", MakeUnigram},
}};

// A file written by an older tokenizers has no "type": the fields tell.
std::string InferType(const nlohmann::json& spec) {
  if (spec.contains("merges")) return "BPE";
  if (spec.contains("max_input_chars_per_word") || spec.contains("continuing_subword_prefix"))
    return "WordPiece";
  if (spec.contains("vocab") && spec["vocab"].is_array()) return "Unigram";
  return "";
}

}  // namespace

std::unique_ptr<Model> MakeModel(const nlohmann::json& spec, const std::string& where) {
  if (!spec.is_object()) throw Error(where + ": expected an object");
  std::string type;
  if (spec.contains("type")) {
    if (!spec["type"].is_string()) throw Error(where + ".type: expected a string");
    type = spec["type"].get<std::string>();
  } else {
    type = InferType(spec);
  }
  return FindKind(kModels, type, where, "a model")(spec, where);
}

}  // namespace phasor::tokenizers

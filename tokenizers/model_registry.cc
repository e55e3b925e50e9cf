#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "engine/error.h"
#include "tokenizers/json_reader.h"
#include "tokenizers/kinds.h"
#include "tokenizers/model.h"
#include "tokenizers/model_spec.h"

namespace phasor::tokenizers {
namespace {

// Every model kind tokenizer.json may name, by its "type".
constexpr Kinds<ModelBuilder, 3> kModels = {{
    {"WordPiece", BuildWordPiece},
    {"BPE", BuildBpe},
    {"Unigram", BuildUnigram},
}};

// A file written by an older tokenizers has no "type": the fields tell.
std::string InferType(const ModelSpec& spec) {
  if (spec.merges) return "BPE";
  if (spec.fields.contains("max_input_chars_per_word") ||
      spec.fields.contains("continuing_subword_prefix"))
    return "WordPiece";
  if (spec.vocab && spec.vocab->is_array()) return "Unigram";
  return "";
}

// A spec given as nlohmann json (a test's, or a caller's), read as a file's.
std::unique_ptr<Model> FromJson(const nlohmann::json& spec, const std::string& where,
                                ModelBuilder build) {
  const JsonDocument document(spec.dump(), where);
  return build(ReadModelSpec(document.root(), "model"), where);
}

}  // namespace

ModelSpec ReadModelSpec(simdjson::dom::element value, const std::string& path) {
  ModelSpec spec;
  if (!value.is_object()) {
    spec.fields = ToJson(value, path);
    return spec;
  }
  spec.fields = nlohmann::json::object();
  const simdjson::dom::object object = value.get_object().value_unsafe();
  for (const auto field : object) {
    std::optional<simdjson::dom::element>* large = field.key == "vocab"    ? &spec.vocab
                                                   : field.key == "merges" ? &spec.merges
                                                                           : nullptr;
    if (large != nullptr) {
      if (*large) RepeatedKey(path, field.key);
      *large = field.value;
      continue;
    }
    const std::string key(field.key);
    auto [slot, fresh] = spec.fields.emplace(key, nullptr);
    if (!fresh) RepeatedKey(path, key);
    slot.value() = ToJson(field.value, MemberPath(path, key));
  }
  return spec;
}

std::unique_ptr<Model> MakeModel(const ModelSpec& spec, const std::string& where) {
  if (!spec.fields.is_object()) throw Error(where + ": expected an object");
  std::string type;
  if (spec.fields.contains("type")) {
    if (!spec.fields["type"].is_string()) throw Error(where + ".type: expected a string");
    type = spec.fields["type"].get<std::string>();
  } else {
    type = InferType(spec);
  }
  return FindKind(kModels, type, where, "a model")(spec, where);
}

std::unique_ptr<Model> MakeModel(const nlohmann::json& spec, const std::string& where) {
  return FromJson(spec, where, MakeModel);
}
std::unique_ptr<Model> MakeWordPiece(const nlohmann::json& spec, const std::string& where) {
  return FromJson(spec, where, BuildWordPiece);
}
std::unique_ptr<Model> MakeBpe(const nlohmann::json& spec, const std::string& where) {
  return FromJson(spec, where, BuildBpe);
}
std::unique_ptr<Model> MakeUnigram(const nlohmann::json& spec, const std::string& where) {
  return FromJson(spec, where, BuildUnigram);
}

}  // namespace phasor::tokenizers

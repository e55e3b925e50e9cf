// A tokenizer.json "model" value as the model builders read it: its small
// members as nlohmann json, its large ones (vocab, merges: hundreds of
// thousands of entries) as simdjson elements read in place, never turned
// into a tree of their own. Internal to phasor_tokenizers.
#pragma once

#include <simdjson.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "tokenizers/model.h"

namespace phasor::tokenizers {

struct ModelSpec {
  nlohmann::json fields;                         // every member but vocab and merges
  std::optional<simdjson::dom::element> vocab;   // in the document the spec was read from
  std::optional<simdjson::dom::element> merges;  // likewise
};

// The spec of value, the model at path ("model") of a document that outlives
// it. A repeated key throws json_text::StructureError naming path.key.
ModelSpec ReadModelSpec(simdjson::dom::element value, const std::string& path);

// The builders of the kinds (model_registry.cc lists them); where names the
// model in messages ("tokenizer.json: model").
using ModelBuilder = std::unique_ptr<Model> (*)(const ModelSpec& spec, const std::string& where);
std::unique_ptr<Model> MakeModel(const ModelSpec& spec, const std::string& where);
std::unique_ptr<Model> BuildWordPiece(const ModelSpec& spec, const std::string& where);
std::unique_ptr<Model> BuildBpe(const ModelSpec& spec, const std::string& where);
std::unique_ptr<Model> BuildUnigram(const ModelSpec& spec, const std::string& where);

}  // namespace phasor::tokenizers

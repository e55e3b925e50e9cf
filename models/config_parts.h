// The "parts" object of config.json (LayerParts, config.h): read, checked and
// written, for ParseConfig, ValidateConfig and ConfigToJson.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "models/config.h"

namespace phasor {

// Throws Error "source: key 'parts.x': ..." for an unknown key, a wrong type.
LayerParts ParseLayerParts(const std::string& source, const nlohmann::json& obj);

// Throws Error naming the key for values out of range given the rest of c
// (n_kv_heads dividing n_heads, local layers inside n_layers, ...).
void ValidateLayerParts(const std::string& source, const ModelConfig& c);

// The object ParseLayerParts reads back to the same values; null when every
// part has its default.
nlohmann::ordered_json LayerPartsToJson(const LayerParts& p);

}  // namespace phasor

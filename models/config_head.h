// The "head" object of config.json (ModelConfig::head, head_pooling,
// pooler_products): read, checked and written, for ParseConfig,
// ValidateConfig and ConfigToJson.
//
//   "head": {"pooler": 1, "pooling": "cls",
//            "products": [{"out": 256, "activation": "tanh", "bias": true,
//                          "norm": {"eps": 1e-5, "bias": true}}, ...]}
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "models/config.h"

namespace phasor {

// Reads obj into c's head. Throws Error "source: key 'head.x': ..." for an
// unknown key, a wrong type or an unknown activation or pooling.
void ParseHeadConfig(const std::string& source, const nlohmann::json& obj, ModelConfig& c);

// Throws Error naming the key for values out of range: a product's out, a
// norm's eps, the pooler's count, a pooling other than cls and mean; and the
// Dense modules' out_features.
void ValidateHeadConfig(const std::string& source, const ModelConfig& c);

// The object ParseHeadConfig reads back to the same values (keys at their
// defaults left out); null without a head.
nlohmann::ordered_json HeadConfigToJson(const ModelConfig& c);

}  // namespace phasor

// Reading the fields of a tokenizer.json component, each error naming
// where.key and what was found: "tokenizer.json: normalizer.lowercase:
// expected true or false, got \"yes\"". Shared by every component family.
// Internal to phasor_tokenizers.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

namespace phasor::tokenizers {

// spec[key]; Error "where.key: missing (it is required)" if absent.
const nlohmann::json& Required(const nlohmann::json& spec, const char* key,
                               const std::string& where);
bool RequiredBool(const nlohmann::json& spec, const char* key, const std::string& where);
std::string RequiredString(const nlohmann::json& spec, const char* key, const std::string& where);

// spec[key] when present and not null, else nullopt (or fallback); a value of
// another type throws Error "where.key: expected ...".
std::optional<bool> OptionalBool(const nlohmann::json& spec, const char* key,
                                 const std::string& where);
bool BoolField(const nlohmann::json& spec, const char* key, const std::string& where,
               bool fallback);
std::optional<std::string> OptionalStringField(const nlohmann::json& spec, const char* key,
                                               const std::string& where);
std::string StringField(const nlohmann::json& spec, const char* key, const std::string& where,
                        const std::string& fallback);

}  // namespace phasor::tokenizers

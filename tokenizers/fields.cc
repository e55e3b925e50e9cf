#include "tokenizers/fields.h"

#include <nlohmann/json.hpp>

#include "engine/error.h"

namespace phasor::tokenizers {

using nlohmann::json;

const json& Required(const json& spec, const char* key, const std::string& where) {
  auto it = spec.find(key);
  if (it == spec.end()) throw Error(where + "." + key + ": missing (it is required)");
  return *it;
}

bool RequiredBool(const json& spec, const char* key, const std::string& where) {
  const json& v = Required(spec, key, where);
  if (!v.is_boolean()) throw Error(where + "." + key + ": expected true or false, got " + v.dump());
  return v.get<bool>();
}

std::string RequiredString(const json& spec, const char* key, const std::string& where) {
  const json& v = Required(spec, key, where);
  if (!v.is_string()) throw Error(where + "." + key + ": expected a string, got " + v.dump());
  return v.get<std::string>();
}

std::optional<bool> OptionalBool(const json& spec, const char* key, const std::string& where) {
  auto it = spec.find(key);
  if (it == spec.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean())
    throw Error(where + "." + key + ": expected true, false or null, got " + it->dump());
  return it->get<bool>();
}

bool BoolField(const json& spec, const char* key, const std::string& where, bool fallback) {
  const auto it = spec.find(key);
  if (it == spec.end() || it->is_null()) return fallback;
  if (!it->is_boolean())
    throw Error(where + "." + key + ": expected true or false, got " + it->dump());
  return it->get<bool>();
}

std::optional<std::string> OptionalStringField(const json& spec, const char* key,
                                               const std::string& where) {
  const auto it = spec.find(key);
  if (it == spec.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) throw Error(where + "." + key + ": expected a string, got " + it->dump());
  return it->get<std::string>();
}

std::string StringField(const json& spec, const char* key, const std::string& where,
                        const std::string& fallback) {
  const auto value = OptionalStringField(spec, key, where);
  return value ? *value : fallback;
}

}  // namespace phasor::tokenizers

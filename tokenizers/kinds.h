// How tokenizer.json's components are read: each family (normalizers,
// pre-tokenizers, models, post-processors) lists its kinds once, as
// {"type", builder} pairs, and a Sequence kind is a list of its family's
// components. Internal to phasor_tokenizers.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "engine/error.h"
#include "tokenizers/fields.h"

namespace phasor::tokenizers {

template <class Builder, size_t N>
using Kinds = std::array<std::pair<const char*, Builder>, N>;

// The builder of type among kinds, or Error "WHERE.type: "X" is not a WHAT
// phasor reads (it reads A, B, ...)".
template <class Builder, size_t N>
Builder FindKind(const Kinds<Builder, N>& kinds, const std::string& type, const std::string& where,
                 const char* what) {
  std::string known;
  for (const auto& [name, build] : kinds) {
    if (type == name) return build;
    known += known.empty() ? name : std::string(", ") + name;
  }
  throw Error(where + ".type: \"" + type + "\" is not " + what + " phasor reads (it reads " +
              known + ")");
}

// The type of spec, an object with a string "type"; Error naming where otherwise.
inline std::string TypeOf(const nlohmann::json& spec, const std::string& where) {
  if (!spec.is_object()) throw Error(where + ": expected an object or null, got " + spec.dump());
  return RequiredString(spec, "type", where);
}

// The steps of a Sequence: make(item, "WHERE.KEY[i]") for each item of
// spec[key], a list; a null item is an error ("expected WHAT, got null").
template <class Make>
auto BuildSteps(const nlohmann::json& spec, const char* key, const std::string& where,
                const char* what, Make make) {
  const nlohmann::json& list = Required(spec, key, where);
  if (!list.is_array()) throw Error(where + "." + key + ": expected a list, got " + list.dump());
  std::vector<decltype(make(list, where))> steps;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string item = where + "." + key + "[" + std::to_string(i) + "]";
    if (list[i].is_null()) throw Error(item + ": expected " + what + ", got null");
    steps.push_back(make(list[i], item));
  }
  return steps;
}

}  // namespace phasor::tokenizers

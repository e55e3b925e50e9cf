#include "models/architectures/checkpoint_config.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "engine/error.h"
#include "engine/json_text.h"

namespace phasor {

using json_text::Found;
using json_text::Quote;

struct CheckpointConfig::Json {
  nlohmann::json value;
};

CheckpointConfig::CheckpointConfig(const std::string& text, std::string source)
    : source_(std::move(source)), root_(std::make_unique<Json>()) {
  try {
    root_->value = json_text::ParseStrictJson(text);
  } catch (const json_text::StructureError& e) {
    throw Error(source_ + ": " + e.message);
  } catch (const nlohmann::json::exception& e) {
    throw Error(source_ + ": not valid JSON: " + json_text::Printable(e.what(), 300));
  }
  if (!root_->value.is_object()) {
    throw Error(source_ + ": expected a JSON object, found " +
                std::string(root_->value.type_name()));
  }
}

CheckpointConfig::~CheckpointConfig() = default;
CheckpointConfig::CheckpointConfig(CheckpointConfig&&) noexcept = default;

CheckpointConfig::CheckpointConfig(ChildTag, std::string source, std::string prefix)
    : source_(std::move(source)), prefix_(std::move(prefix)), root_(std::make_unique<Json>()) {}

CheckpointConfig CheckpointConfig::Child(const std::string& key) const {
  if (!Has(key) || !root_->value[key].is_object()) {
    Fail(key, "expected an object, found " +
                  (Has(key) ? Found(root_->value[key]) : std::string("nothing")));
  }
  CheckpointConfig child(ChildTag{}, source_, prefix_ + key + ".");
  child.root_->value = root_->value[key];
  return child;
}

void CheckpointConfig::Fail(const std::string& key, const std::string& what) const {
  throw Error(source_ + ": key '" + prefix_ + key + "': " + what);
}

bool CheckpointConfig::Has(const std::string& key) const {
  return root_->value.contains(key) && !root_->value[key].is_null();
}

bool CheckpointConfig::Present(const std::string& key) const { return root_->value.contains(key); }

int64_t CheckpointConfig::Int(const std::string& key, int64_t lo, int64_t hi,
                              std::optional<int64_t> fallback) const {
  if (!Has(key)) {
    if (fallback) return *fallback;
    throw Error(source_ + ": missing required key '" + prefix_ + key + "'");
  }
  const nlohmann::json& v = root_->value[key];
  if (!v.is_number_integer()) Fail(key, "expected an integer, found " + Found(v));
  const int64_t n =
      v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX ? INT64_MAX : v.get<int64_t>();
  if (n < lo || n > hi) {
    Fail(key, std::to_string(n) + " is out of range, expected " + std::to_string(lo) + " to " +
                  std::to_string(hi));
  }
  return n;
}

double CheckpointConfig::Number(const std::string& key, double fallback) const {
  if (!Has(key)) return fallback;
  const nlohmann::json& v = root_->value[key];
  if (!v.is_number() || !std::isfinite(v.get<double>())) {
    Fail(key, "expected a finite number, found " + Found(v));
  }
  return v.get<double>();
}

std::string CheckpointConfig::String(const std::string& key, const std::string& fallback) const {
  if (!Has(key)) return fallback;
  const nlohmann::json& v = root_->value[key];
  if (!v.is_string()) Fail(key, "expected a string, found " + Found(v));
  return v.get<std::string>();
}

bool CheckpointConfig::Bool(const std::string& key, bool fallback) const {
  if (!Has(key)) return fallback;
  const nlohmann::json& v = root_->value[key];
  if (!v.is_boolean()) Fail(key, "expected true or false, found " + Found(v));
  return v.get<bool>();
}

std::map<std::string, std::string> CheckpointConfig::StringMap(const std::string& key) const {
  if (!Has(key)) throw Error(source_ + ": missing required key '" + prefix_ + key + "'");
  const nlohmann::json& v = root_->value[key];
  if (!v.is_object()) Fail(key, "expected an object of strings, found " + Found(v));
  std::map<std::string, std::string> out;
  for (const auto& item : v.items()) {
    if (!item.value().is_string()) {
      Fail(key, "'" + item.key() + "': expected a string, found " + Found(item.value()));
    }
    out[item.key()] = item.value().get<std::string>();
  }
  return out;
}

std::vector<std::string> CheckpointConfig::StringList(const std::string& key) const {
  std::vector<std::string> out;
  if (!Has(key)) return out;
  const nlohmann::json& v = root_->value[key];
  if (!v.is_array()) Fail(key, "expected an array of strings, found " + Found(v));
  for (const nlohmann::json& item : v) {
    if (!item.is_string()) Fail(key, "expected an array of strings, found " + Found(item));
    out.push_back(item.get<std::string>());
  }
  return out;
}

void CheckpointConfig::Expect(const std::string& key,
                              const std::vector<std::string>& allowed) const {
  if (!Has(key)) return;
  const nlohmann::json& v = root_->value[key];
  for (const std::string& a : allowed) {
    if (v.is_string() && v.get<std::string>() == a) return;
  }
  std::string list;
  for (size_t k = 0; k < allowed.size(); ++k) {
    list += (k == 0 ? "" : k + 1 == allowed.size() ? " or " : ", ") + Quote(allowed[k], 40);
  }
  Fail(key, (v.is_string() ? Quote(v.get<std::string>(), 60) : Found(v)) +
                " is not supported, expected " + list);
}

}  // namespace phasor

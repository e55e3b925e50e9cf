#include "tokenizers/json_reader.h"

#include <algorithm>

#include "engine/error.h"
#include "engine/json_text.h"

namespace phasor::tokenizers {

using nlohmann::json;

namespace {

// A value's place from the root, spelled out only for a message: the
// parent's place, then ".key" for a member or "[]" (once) for a list's item.
struct Place {
  const Place* parent;
  std::string_view key;  // a member's, or the root's whole path
  bool item;

  std::string Spell() const {
    if (parent == nullptr) return std::string(key);
    std::string out = parent->Spell();
    if (item) {
      if (out.size() < 2 || out.compare(out.size() - 2, 2, "[]") != 0) out += "[]";
      return out;
    }
    return MemberPath(out, key);
  }
};

json Convert(simdjson::dom::element value, const Place& place) {
  switch (value.type()) {
    case simdjson::dom::element_type::OBJECT: {
      json out = json::object();
      const simdjson::dom::object object = value.get_object().value_unsafe();
      for (const auto field : object) {
        auto [slot, fresh] = out.emplace(std::string(field.key), nullptr);
        if (!fresh) RepeatedKey(place.Spell(), field.key);
        slot.value() = Convert(field.value, Place{&place, field.key, false});
      }
      return out;
    }
    case simdjson::dom::element_type::ARRAY: {
      json out = json::array();
      const simdjson::dom::array list = value.get_array().value_unsafe();
      const Place item{&place, {}, true};
      for (const auto v : list) out.push_back(Convert(v, item));
      return out;
    }
    case simdjson::dom::element_type::INT64: {
      const int64_t v = value.get_int64().value_unsafe();
      // nlohmann keeps an integer >= 0 as unsigned.
      if (v >= 0) return json(static_cast<uint64_t>(v));
      return json(v);
    }
    case simdjson::dom::element_type::UINT64:
      return json(value.get_uint64().value_unsafe());
    case simdjson::dom::element_type::DOUBLE:
      return json(value.get_double().value_unsafe());
    case simdjson::dom::element_type::STRING:
      return json(std::string(value.get_string().value_unsafe()));
    case simdjson::dom::element_type::BOOL:
      return json(value.get_bool().value_unsafe());
    case simdjson::dom::element_type::NULL_VALUE:
      break;
  }
  return json(nullptr);
}

}  // namespace

JsonDocument::JsonDocument(const std::string& text, const std::string& name) {
  Parse(text, text.capacity() - text.size() >= simdjson::SIMDJSON_PADDING, name);
}

JsonDocument::JsonDocument(const FileText& file, const std::string& name) {
  Parse(file.text(), true, name);
}

void JsonDocument::Parse(std::string_view text, bool padded, const std::string& name) {
  parser_ = std::make_unique<simdjson::dom::parser>();
  simdjson::error_code error =
      parser_->allocate(std::max<size_t>(text.size(), 64), json_text::kMaxJsonDepth);
  if (!error) error = parser_->parse(text.data(), text.size(), !padded).get(root_);
  if (!error) return;
  // nlohmann's message says where the text goes wrong; simdjson's does not.
  json parsed;
  try {
    parsed = json_text::ParseStrictJson(std::string(text));
  } catch (const json::exception& e) {
    throw Error(name + ": not valid JSON: " + e.what());
  } catch (const json_text::StructureError& e) {
    throw Error(name + ": " + e.message);
  }
  // What nlohmann reads and simdjson does not (an integer past 64 bits, as
  // transformers writes model_max_length: nlohmann's double): nlohmann's
  // reading, written out again.
  error = parser_->parse(parsed.dump()).get(root_);
  if (error) throw Error(name + ": not valid JSON: " + simdjson::error_message(error));
}

json ToJson(simdjson::dom::element value, const std::string& path) {
  return Convert(value, Place{nullptr, path, false});
}

void RepeatedKey(const std::string& path, std::string_view key) {
  throw json_text::StructureError{"key " + json_text::Quote(MemberPath(path, key), 120) +
                                  " appears twice, expected once"};
}

}  // namespace phasor::tokenizers

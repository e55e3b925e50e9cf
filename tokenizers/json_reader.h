// JSON files of tokenizers read with simdjson: the text parsed once into
// simdjson's compact DOM, checked as json_text::ParseStrictJson checks (a key
// once per object, nesting at most kMaxJsonDepth deep) with the same
// messages. Small values are turned into nlohmann json for the component
// builders; the large ones (a model's vocab and merges) are read in place.
// Internal to phasor_tokenizers.
#pragma once

#include <simdjson.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace phasor::tokenizers {

// The text of a tokenizer file, with room after it for simdjson's padding
// (read without a copy). Throws Error naming the file it cannot read.
std::string ReadFileText(const std::string& path);

class JsonDocument {
 public:
  // Parses text (JSON); name is the file in messages. Throws Error
  // "NAME: not valid JSON: ..." (nlohmann's message, with its position) or
  // "NAME: nested deeper than ..." as ReadJson did.
  JsonDocument(const std::string& text, const std::string& name);
  JsonDocument(const JsonDocument&) = delete;
  JsonDocument& operator=(const JsonDocument&) = delete;

  simdjson::dom::element root() const { return root_; }

 private:
  std::unique_ptr<simdjson::dom::parser> parser_;  // owns the DOM root_ points into
  simdjson::dom::element root_;
};

// value as nlohmann json. path: its dotted place from the root ("normalizer",
// "" for the root), named with the file by the message of a repeated key
// (thrown as json_text::StructureError, as ParseStrictJson throws it).
nlohmann::json ToJson(simdjson::dom::element value, const std::string& path);

// The dotted path of a member key of the object at path.
inline std::string MemberPath(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

// Throws json_text::StructureError for key appearing twice in the object at path.
[[noreturn]] void RepeatedKey(const std::string& path, std::string_view key);

}  // namespace phasor::tokenizers

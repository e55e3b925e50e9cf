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

#include "tokenizers/file_text.h"

namespace phasor::tokenizers {

class JsonDocument {
 public:
  // Parses text (JSON); name is the file in messages. Throws Error
  // "NAME: not valid JSON: ..." (nlohmann's message, with its position) or
  // "NAME: nested deeper than ..." as ReadJson did.
  JsonDocument(const std::string& text, const std::string& name);
  // The same on a file's text, read where it is mapped (no copy).
  JsonDocument(const FileText& file, const std::string& name);
  JsonDocument(const JsonDocument&) = delete;
  JsonDocument& operator=(const JsonDocument&) = delete;

  simdjson::dom::element root() const { return root_; }

 private:
  // Parses text, whose padding is there when padded.
  void Parse(std::string_view text, bool padded, const std::string& name);

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

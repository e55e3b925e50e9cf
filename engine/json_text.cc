#include "engine/json_text.h"

#include <cstdio>
#include <unordered_set>
#include <vector>

namespace phasor::json_text {
namespace {

using Json = nlohmann::json;

// Found() stops near this many characters.
constexpr size_t kFoundChars = 80;

// Appends a short rendering of value to out, stopping near kFoundChars.
void AppendBrief(const Json& value, std::string* out) {
  if (out->size() > kFoundChars) return;
  if (!value.is_structured()) {
    *out += value.dump(-1, ' ', true, Json::error_handler_t::replace);
    return;
  }
  const bool object = value.is_object();
  *out += object ? '{' : '[';
  bool first = true;
  for (const auto& item : value.items()) {
    if (!first) *out += ',';
    first = false;
    if (out->size() > kFoundChars) break;
    if (object) *out += Json(item.key()).dump(-1, ' ', true, Json::error_handler_t::replace) + ":";
    AppendBrief(item.value(), out);
  }
  *out += object ? '}' : ']';
}

}  // namespace

std::string Printable(const std::string& text, size_t max) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < max; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (text.size() > max) out += "...";
  return out;
}

std::string Quote(const std::string& text, size_t max) { return "'" + Printable(text, max) + "'"; }

// A JSON value as found in the file, for "found ..." in messages.
std::string Found(const Json& value) {
  std::string text;
  AppendBrief(value, &text);
  if (text.size() > kFoundChars) text = text.substr(0, kFoundChars - 3) + "...";
  return text;
}

Json ParseStrictJson(const std::string& text) {
  // nlohmann's parser takes a NUL byte for the end of the input: whatever
  // follows one would be dropped unread.
  const size_t nul = text.find('\0');
  if (nul != std::string::npos) {
    throw StructureError{"not valid JSON: a NUL byte at offset " + std::to_string(nul)};
  }
  struct Object {
    std::string path;  // dotted keys from the root; "[]" for an array element
    std::string last_key;
    std::unordered_set<std::string> keys;  // hashed: a vocabulary has 10^5 keys
  };
  std::vector<Object> objects;
  std::vector<bool> is_object;  // one per open container
  const Json::parser_callback_t callback = [&](int depth, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        if (depth >= kMaxJsonDepth) {
          throw StructureError{"nested deeper than " + std::to_string(kMaxJsonDepth) +
                               " levels, expected a shallow object"};
        }
        if (event == Json::parse_event_t::object_start) {
          std::string path;
          if (!objects.empty()) {
            const Object& parent = objects.back();
            path = parent.path.empty() ? parent.last_key : parent.path + "." + parent.last_key;
            if (!is_object.back()) path += "[]";
          }
          objects.push_back(Object{std::move(path), "", {}});
        }
        is_object.push_back(event == Json::parse_event_t::object_start);
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        if (!is_object.empty()) {
          if (is_object.back() && !objects.empty()) objects.pop_back();
          is_object.pop_back();
        }
        break;
      case Json::parse_event_t::key: {
        Object& object = objects.back();
        object.last_key = parsed.get<std::string>();
        if (!object.keys.insert(object.last_key).second) {
          const std::string key =
              object.path.empty() ? object.last_key : object.path + "." + object.last_key;
          throw StructureError{"key " + Quote(key, 120) + " appears twice, expected once"};
        }
        break;
      }
      case Json::parse_event_t::value:
        break;
    }
    return true;
  };
  return Json::parse(text, callback);
}

}  // namespace phasor::json_text

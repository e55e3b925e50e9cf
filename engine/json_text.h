// Reading JSON from files strictly, and quoting file text in messages. Shared
// by the safetensors header reader and the config reader.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace phasor::json_text {

// Text from a file (or from a parser quoting it), made safe for a one-line
// message: control and non-ASCII bytes escaped as \xNN, cut after max bytes.
std::string Printable(const std::string& text, size_t max);

// Printable(text, max) in single quotes.
std::string Quote(const std::string& text, size_t max);

// A short rendering of a JSON value for "found ..." in messages.
std::string Found(const nlohmann::json& value);

// Thrown by ParseStrictJson for a repeated key, nesting deeper than
// kMaxJsonDepth or a NUL byte; the caller adds the file name.
struct StructureError {
  std::string message;
};
constexpr int kMaxJsonDepth = 16;  // no valid file nests more than 3 levels

// Parses JSON like nlohmann::json::parse (whose parse_error it lets through),
// but refuses an object that repeats a key (nlohmann would keep the last one
// silently), nesting deeper than kMaxJsonDepth, and a NUL byte (where
// nlohmann would stop reading, dropping what follows).
nlohmann::json ParseStrictJson(const std::string& text);

}  // namespace phasor::json_text

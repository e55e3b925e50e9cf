// The server's request and answer bodies: errors with their HTTP status and
// type, the input forms requests carry, and float rows written as JSON.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace phasor::serving {

// A request the server refuses: its HTTP status, a type (TEI's:
// "Validation", "Tokenizer", "Empty", "Overloaded", "Backend", "Unhealthy";
// "NotFound") and a message naming the field. Thrown by the routes.
struct ApiError {
  int status = 422;
  std::string type = "Validation";
  std::string message;
};

// {"error": message, "error_type": type}
std::string ErrorBody(const std::string& message, const std::string& type);

// The body parsed as JSON: nesting bounded, a repeated key refused. ApiError
// 422 naming the byte where it stops being JSON.
nlohmann::json ParseBody(const std::string& body);

// What a request's input holds: texts or sequences of token ids.
struct Inputs {
  bool one = false;                       // a single str (or id sequence) rather than a list
  std::vector<std::string> texts;         // text input
  std::vector<std::vector<int64_t>> ids;  // token-id input
  bool is_text() const { return !texts.empty(); }
  int64_t count() const { return static_cast<int64_t>(is_text() ? texts.size() : ids.size()); }
};

// Reads field (named so in messages) as str | [str] | [int] | [[int]]
// (with_ids false: str | [str] only). ApiError 400 "Empty" for no input,
// 422 naming the item for anything else.
Inputs ReadInputs(const nlohmann::json& body, const std::string& field, bool with_ids);

// body[field] as a bool (fallback if absent or null); ApiError 422 otherwise.
bool ReadBool(const nlohmann::json& body, const std::string& field, bool fallback);
// body[field] as a str (fallback if absent or null); ApiError 422 otherwise.
std::string ReadString(const nlohmann::json& body, const std::string& field,
                       const std::string& fallback);

// Refuses body["dimensions"] (OpenAI's and TEI's request for shorter rows)
// unless it is absent, null or width itself: ApiError 422 naming the width.
void CheckDimensions(const nlohmann::json& body, int64_t width);

// Appends v as the shortest text that reads back to the same float32 (null
// for NaN and infinities, which JSON lacks).
void AppendFloat(float v, std::string& out);
// Appends row [d] as a JSON array of AppendFloat's values.
void AppendFloats(const float* row, int64_t d, std::string& out);
// Appends row [d] as base64 of its little-endian float32 bytes, quoted
// (OpenAI's encoding_format "base64").
void AppendBase64Floats(const float* row, int64_t d, std::string& out);
// A str as a JSON string, quoted and escaped.
std::string Quoted(const std::string& s);

}  // namespace phasor::serving

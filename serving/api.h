// The server's request and answer bodies: errors with their HTTP status and
// type, the input forms requests carry, and float rows written as JSON.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace phasor::serving {

// A request the server refuses: its HTTP status, a type (TEI's:
// "Validation", "Tokenizer", "Empty", "Overloaded", "Backend", "Unhealthy";
// "NotFound") and a message naming the field. Thrown by the routes.
struct ApiError {
  ApiError(int status_, std::string type_, std::string message_, std::string param_ = "")
      : status(status_),
        type(std::move(type_)),
        message(std::move(message_)),
        param(std::move(param_)) {}
  int status = 422;
  std::string type = "Validation";
  std::string message;
  std::string param;  // the request's field it is about ("input"), or ""
};

// {"error": message, "error_type": type}: TEI's shape, on every route but /v1/*.
std::string ErrorBody(const ApiError& e);
// {"error": {"message", "type", "param", "code"}}: OpenAI's shape, on /v1/*
// (type "invalid_request_error" for a 4xx, "rate_limit_error" for 429,
// "server_error" for a 5xx; code TEI's type in snake case).
std::string OpenAiErrorBody(const ApiError& e);

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
// body[field] as a bool, or nullopt if absent or null; ApiError 422 otherwise.
std::optional<bool> ReadOptionalBool(const nlohmann::json& body, const std::string& field);
// body[field] as a str (fallback if absent or null); ApiError 422 otherwise.
std::string ReadString(const nlohmann::json& body, const std::string& field,
                       const std::string& fallback);

// body["dimensions"] (OpenAI's and TEI's request for shorter rows, as
// Matryoshka models are trained to give): width when absent or null, else an
// integer in [1, width]; ApiError 422 naming the width otherwise.
int64_t ReadDimensions(const nlohmann::json& body, int64_t width);

// Cuts rows [n, w] to their first d values in place ([n, d]), each renormalised
// to unit length if normalize.
void CutRows(std::vector<float>& rows, int64_t n, int64_t w, int64_t d, bool normalize);

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

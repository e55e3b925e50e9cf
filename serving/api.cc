#include "serving/api.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/json_text.h"
#include "models/pooling.h"

namespace phasor::serving {
namespace {

using Json = nlohmann::json;

[[noreturn]] void Invalid(const std::string& message, const std::string& param = "") {
  throw ApiError{422, "Validation", message, param};
}

// "Validation" -> "validation", "NotFound" -> "not_found".
std::string SnakeCase(const std::string& type) {
  std::string out;
  for (const char c : type) {
    if (c >= 'A' && c <= 'Z') {
      if (!out.empty()) out += '_';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}

// Reads item as one sequence of ids; name is its place ("input[2]").
std::vector<int64_t> IdsOf(const Json& item, const std::string& name) {
  std::vector<int64_t> ids;
  ids.reserve(item.size());
  for (size_t j = 0; j < item.size(); ++j) {
    const Json& v = item[j];
    if (!v.is_number_integer()) {
      Invalid(name + "[" + std::to_string(j) + "]: expected a token id (an integer), found " +
              json_text::Found(v));
    }
    if (v.is_number_unsigned() &&
        v.get<uint64_t>() > uint64_t{std::numeric_limits<int32_t>::max()}) {
      Invalid(name + "[" + std::to_string(j) + "]: token id " + v.dump() + " is out of range");
    }
    ids.push_back(v.get<int64_t>());
  }
  return ids;
}

}  // namespace

std::string ErrorBody(const ApiError& e) {
  return Json{{"error", e.message}, {"error_type", e.type}}.dump(-1, ' ', false,
                                                                 Json::error_handler_t::replace);
}

std::string OpenAiErrorBody(const ApiError& e) {
  const char* type = e.status == 429   ? "rate_limit_error"
                     : e.status >= 500 ? "server_error"
                                       : "invalid_request_error";
  const Json error = {{"message", e.message},
                      {"type", type},
                      {"param", e.param.empty() ? Json(nullptr) : Json(e.param)},
                      {"code", SnakeCase(e.type)}};
  return Json{{"error", error}}.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json ParseBody(const std::string& body) {
  try {
    return json_text::ParseStrictJson(body);
  } catch (const Json::exception& e) {  // parse_error; out_of_range for 1e999
    Invalid("the body is not valid JSON: " + std::string(e.what()));
  } catch (const json_text::StructureError& e) {
    Invalid("the body: " + e.message);
  }
}

namespace {

Inputs ReadInputsOf(const Json& body, const std::string& field, bool with_ids) {
  if (!body.is_object()) Invalid("the body must be a JSON object, found " + json_text::Found(body));
  const auto it = body.find(field);
  const char* forms = with_ids ? "a string, an array of strings, an array of token ids or an "
                                 "array of arrays of token ids"
                               : "a string or an array of strings";
  if (it == body.end() || it->is_null()) Invalid("'" + field + "' is missing: expected " + forms);
  const Json& v = *it;
  Inputs in;
  if (v.is_string()) {
    in.one = true;
    in.texts.push_back(v.get<std::string>());
    return in;
  }
  if (!v.is_array()) Invalid("'" + field + "' must be " + forms + ", found " + json_text::Found(v));
  if (v.empty())
    throw ApiError{400, "Empty", "'" + field + "' is empty: there is nothing to encode"};
  if (with_ids && v[0].is_number()) {
    in.one = true;
    in.ids.push_back(IdsOf(v, field));
    return in;
  }
  for (size_t i = 0; i < v.size(); ++i) {
    const Json& item = v[i];
    const std::string name = field + "[" + std::to_string(i) + "]";
    if (item.is_string() && (i == 0 || !in.texts.empty())) {
      in.texts.push_back(item.get<std::string>());
    } else if (with_ids && item.is_array() && in.texts.empty()) {
      in.ids.push_back(IdsOf(item, name));
    } else {
      Invalid(name + ": expected " +
              (in.texts.empty() && i > 0 ? std::string("an array of token ids")
               : i > 0                   ? std::string("a string, as the items before it")
                                         : std::string(forms)) +
              ", found " + json_text::Found(item));
    }
  }
  return in;
}

}  // namespace

Inputs ReadInputs(const Json& body, const std::string& field, bool with_ids) {
  try {
    return ReadInputsOf(body, field, with_ids);
  } catch (ApiError& e) {
    if (e.param.empty()) e.param = field;
    throw;
  }
}

bool ReadBool(const Json& body, const std::string& field, bool fallback) {
  const auto it = body.find(field);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_boolean())
    Invalid("'" + field + "' must be true or false, found " + json_text::Found(*it), field);
  return it->get<bool>();
}

std::optional<bool> ReadOptionalBool(const Json& body, const std::string& field) {
  const auto it = body.find(field);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean())
    Invalid("'" + field + "' must be true or false, found " + json_text::Found(*it), field);
  return it->get<bool>();
}

std::string ReadString(const Json& body, const std::string& field, const std::string& fallback) {
  const auto it = body.find(field);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_string())
    Invalid("'" + field + "' must be a string, found " + json_text::Found(*it), field);
  return it->get<std::string>();
}

int64_t ReadDimensions(const Json& body, int64_t width) {
  const auto it = body.find("dimensions");
  if (it == body.end() || it->is_null()) return width;
  if (!it->is_number_integer() || it->get<int64_t>() < 1 || it->get<int64_t>() > width) {
    Invalid("'dimensions' must be an integer from 1 to " + std::to_string(width) +
                " (the model's rows have " + std::to_string(width) + " values), found " +
                json_text::Found(*it),
            "dimensions");
  }
  return it->get<int64_t>();
}

void CutRows(std::vector<float>& rows, int64_t n, int64_t w, int64_t d, bool normalize) {
  for (int64_t i = 0; i < n; ++i) {
    float* to = rows.data() + i * d;
    const float* from = rows.data() + i * w;
    std::memmove(to, from, static_cast<size_t>(d) * sizeof(float));
  }
  rows.resize(static_cast<size_t>(n * d));
  if (normalize) NormalizeRows(rows.data(), n, d);
}

void AppendFloat(float v, std::string& out) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void AppendFloats(const float* row, int64_t d, std::string& out) {
  out.push_back('[');
  for (int64_t i = 0; i < d; ++i) {
    if (i > 0) out.push_back(',');
    AppendFloat(row[i], out);
  }
  out.push_back(']');
}

void AppendBase64Floats(const float* row, int64_t d, std::string& out) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto n = static_cast<size_t>(d) * sizeof(float);
  std::vector<unsigned char> bytes(n);
  std::memcpy(bytes.data(), row, n);  // x86-64 and aarch64 Linux: little-endian already
  out.push_back('"');
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    const uint32_t v = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
  }
  if (i < n) {
    const bool two = i + 1 < n;
    const uint32_t v = (uint32_t{bytes[i]} << 16) | (two ? uint32_t{bytes[i + 1]} << 8 : 0);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(two ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  out.push_back('"');
}

std::string Quoted(const std::string& s) {
  return Json(s).dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace phasor::serving

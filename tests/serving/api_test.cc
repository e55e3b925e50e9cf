// The server's bodies: input forms and their errors, float rows that read back
// to the same float32, base64 as Python's base64 module writes it.
#include "serving/api.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace phasor::serving {
namespace {

using Json = nlohmann::json;

ApiError ErrorOf(const Json& body, const std::string& field = "input", bool with_ids = true) {
  try {
    ReadInputs(body, field, with_ids);
  } catch (const ApiError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for " << body.dump();
  return ApiError{0, "", ""};
}

TEST(ServeApiTest, ReadsEachInputForm) {
  Inputs in = ReadInputs(Json::parse(R"({"input": "a b"})"), "input", true);
  EXPECT_TRUE(in.one && in.is_text());
  EXPECT_EQ(in.texts, std::vector<std::string>{"a b"});
  in = ReadInputs(Json::parse(R"({"input": ["a", ""]})"), "input", true);
  EXPECT_FALSE(in.one);
  EXPECT_EQ(in.texts, (std::vector<std::string>{"a", ""}));
  in = ReadInputs(Json::parse(R"({"input": [3, 14, 2147483647]})"), "input", true);
  EXPECT_TRUE(in.one && !in.is_text());
  EXPECT_EQ(in.ids, (std::vector<std::vector<int64_t>>{{3, 14, 2147483647}}));
  in = ReadInputs(Json::parse(R"({"input": [[3], [1, 5]]})"), "input", true);
  EXPECT_EQ(in.ids, (std::vector<std::vector<int64_t>>{{3}, {1, 5}}));
  EXPECT_EQ(in.count(), 2);
}

TEST(ServeApiTest, RefusesOtherFormsNamingTheItem) {
  EXPECT_EQ(ErrorOf(Json::parse(R"({"input": []})")).status, 400);
  EXPECT_EQ(ErrorOf(Json::parse(R"({"input": []})")).type, "Empty");
  const ApiError missing = ErrorOf(Json::parse(R"({"inputs": "a"})"));
  EXPECT_EQ(missing.status, 422);
  EXPECT_NE(missing.message.find("'input' is missing"), std::string::npos) << missing.message;
  EXPECT_NE(
      ErrorOf(Json::parse(R"({"input": ["a", 3]})")).message.find("input[1]: expected a string"),
      std::string::npos);
  EXPECT_NE(
      ErrorOf(Json::parse(R"({"input": [[1], "a"]})")).message.find("input[1]: expected an array"),
      std::string::npos);
  EXPECT_NE(ErrorOf(Json::parse(R"({"input": [[1, 2.5]]})"))
                .message.find("input[0][1]: expected a token id"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Json::parse(R"({"input": [2147483648]})"))
                .message.find("input[0]: token id 2147483648 is out of range"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Json::parse(R"({"input": {"a": 1}})")).message.find("'input' must be"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Json::parse(R"([1, 2])")).message.find("must be a JSON object"),
            std::string::npos);
  // Text only where ids are not taken (/tokenize, /rerank).
  EXPECT_NE(ErrorOf(Json::parse(R"({"texts": [1]})"), "texts", false)
                .message.find("texts[0]: expected a string or an array of strings"),
            std::string::npos);
}

TEST(ServeApiTest, ErrorsInOpenAisShapeAndTeis) {
  const ApiError e = ErrorOf(Json::parse(R"({"input": [[1], "a"]})"));
  EXPECT_EQ(e.param, "input");
  const Json openai = Json::parse(OpenAiErrorBody(e));
  EXPECT_EQ(openai, (Json{{"error",
                           {{"message", e.message},
                            {"type", "invalid_request_error"},
                            {"param", "input"},
                            {"code", "validation"}}}}));
  EXPECT_EQ(Json::parse(ErrorBody(e)), (Json{{"error", e.message}, {"error_type", "Validation"}}));
  const Json busy = Json::parse(OpenAiErrorBody(ApiError{429, "Overloaded", "later"}));
  EXPECT_EQ(busy["error"]["type"], "rate_limit_error");
  EXPECT_EQ(busy["error"]["code"], "overloaded");
  EXPECT_TRUE(busy["error"]["param"].is_null());
  const Json lost = Json::parse(OpenAiErrorBody(ApiError{404, "NotFound", "no route"}));
  EXPECT_EQ(lost["error"]["code"], "not_found");
  EXPECT_EQ(Json::parse(OpenAiErrorBody(ApiError{500, "Backend", "x"}))["error"]["type"],
            "server_error");
}

TEST(ServeApiTest, DimensionsCutRowsAndRenormalise) {
  EXPECT_EQ(ReadDimensions(Json::parse(R"({"input": "a"})"), 8), 8);
  EXPECT_EQ(ReadDimensions(Json::parse(R"({"dimensions": null})"), 8), 8);
  EXPECT_EQ(ReadDimensions(Json::parse(R"({"dimensions": 3})"), 8), 3);
  for (const char* bad : {R"({"dimensions": 0})", R"({"dimensions": 9})", R"({"dimensions": 2.5})",
                          R"({"dimensions": "4"})"}) {
    try {
      ReadDimensions(Json::parse(bad), 8);
      ADD_FAILURE() << "no error for " << bad;
    } catch (const ApiError& e) {
      EXPECT_EQ(e.status, 422) << bad;
      EXPECT_EQ(e.param, "dimensions");
      EXPECT_NE(e.message.find("from 1 to 8"), std::string::npos) << e.message;
    }
  }
  // Two rows of 4 cut to 2: the first values, then of unit length (3-4-5 triangles).
  std::vector<float> rows = {3, 4, 9, 9, 0.6f, 0.8f, -1, -1};
  CutRows(rows, 2, 4, 2, false);
  EXPECT_EQ(rows, (std::vector<float>{3, 4, 0.6f, 0.8f}));
  rows = {3, 4, 9, 9, -6, 8, 1, 1};
  CutRows(rows, 2, 4, 2, true);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_NEAR(rows[0], 0.6, 1e-7);
  EXPECT_NEAR(rows[1], 0.8, 1e-7);
  EXPECT_NEAR(rows[2], -0.6, 1e-7);
  EXPECT_NEAR(rows[3], 0.8, 1e-7);
}

TEST(ServeApiTest, BodyErrorsAre422) {
  for (const char* body : {"", "{", "{\"a\": 1e999}",
                           "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
                           "{\"a\": 1, \"a\": 2}"}) {
    try {
      ParseBody(body);
      ADD_FAILURE() << "no error for " << body;
    } catch (const ApiError& e) {
      EXPECT_EQ(e.status, 422) << body;
    }
  }
}

TEST(ServeApiTest, FloatsReadBackToTheSameBits) {
  std::mt19937 rng(7);
  std::vector<float> row = {0.0f,
                            -0.0f,
                            1.0f,
                            0.1f,
                            -1e-45f,
                            std::numeric_limits<float>::min(),
                            std::numeric_limits<float>::max(),
                            -3.4e38f,
                            1.17549421e-38f};
  for (int i = 0; i < 2000; ++i) {
    uint32_t bits = rng();
    float f;
    std::memcpy(&f, &bits, 4);
    if (std::isfinite(f)) row.push_back(f);
  }
  std::string text;
  AppendFloats(row.data(), static_cast<int64_t>(row.size()), text);
  ASSERT_EQ(text.front(), '[');
  ASSERT_EQ(text.back(), ']');
  // Read back as the C library reads text (strtof), not by the writer's own code.
  std::vector<std::string> items;
  size_t at = 1;
  for (size_t comma; (comma = text.find(',', at)) != std::string::npos; at = comma + 1)
    items.push_back(text.substr(at, comma - at));
  items.push_back(text.substr(at, text.size() - 1 - at));
  ASSERT_EQ(items.size(), row.size());
  for (size_t i = 0; i < row.size(); ++i) {
    const float back = std::strtof(items[i].c_str(), nullptr);
    EXPECT_EQ(std::memcmp(&back, &row[i], 4), 0) << items[i];
    EXPECT_LE(items[i].size(), 15u) << "not the shortest: " << items[i];
  }
  std::string nan;
  const float odd[] = {std::nanf(""), INFINITY, -INFINITY, 2.5f};
  AppendFloats(odd, 4, nan);
  EXPECT_EQ(nan, "[null,null,null,2.5]");
}

TEST(ServeApiTest, Base64IsPythonsOfTheLittleEndianBytes) {
  // Python: base64.b64encode(struct.pack('<f', 1.0)), ('<2f', 1.0, -2.0), ('<3f', 0.1,
  // -0.0, 3.5e-40)
  const float one[] = {1.0f};
  const float two[] = {1.0f, -2.0f};
  const float three[] = {0.1f, -0.0f, 3.5e-40f};
  std::string a, b, c;
  AppendBase64Floats(one, 1, a);
  AppendBase64Floats(two, 2, b);
  AppendBase64Floats(three, 3, c);
  EXPECT_EQ(a, "\"AACAPw==\"");
  EXPECT_EQ(b, "\"AACAPwAAAMA=\"");
  EXPECT_EQ(c, "\"zczMPQAAAICozwMA\"");
}

}  // namespace
}  // namespace phasor::serving

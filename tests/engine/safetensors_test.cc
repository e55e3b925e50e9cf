// Tests of engine/safetensors: files are assembled byte by byte here, so every
// expected value is known independently of the reader.
#include "engine/safetensors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "engine/bfloat16.h"
#include "engine/error.h"

namespace {

using phasor::Error;
using phasor::Weights;

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "phasor_safetensors_" + name + ".safetensors";
}

std::string U64(uint64_t v) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

// Writes length prefix + header + data to a temp file and returns its path.
std::string WriteFile(const std::string& name, const std::string& header, const std::string& data) {
  std::string path = TempPath(name);
  WriteBytes(path, U64(header.size()) + header + data);
  return path;
}

template <typename Floats>
std::string F32Bytes(const Floats& values) {
  std::string out;
  for (float v : values) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  }
  return out;
}

std::string U16Bytes(const std::vector<uint16_t>& values) {
  std::string out;
  for (uint16_t v : values) {
    out.push_back(static_cast<char>(v & 0xff));
    out.push_back(static_cast<char>(v >> 8));
  }
  return out;
}

// Runs fn, expects an Error whose message contains every one of parts.
template <typename Fn>
void ExpectErrorContaining(Fn fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "no Error thrown; expected one mentioning " << parts.front();
  } catch (const Error& e) {
    const std::string message = e.what();
    for (const std::string& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos)
          << "message: " << message << "\nmissing: " << part;
    }
    EXPECT_EQ(message.find('\n'), std::string::npos) << "not one line: " << message;
    if (std::getenv("PHASOR_PRINT_ERRORS")) std::cerr << message << "\n";
  }
}

TEST(SafetensorsHalf, KnownValues) {
  EXPECT_EQ(phasor::HalfToFloat(0x0000), 0.0f);
  EXPECT_TRUE(std::signbit(phasor::HalfToFloat(0x8000)));
  EXPECT_EQ(phasor::HalfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(phasor::HalfToFloat(0xC000), -2.0f);
  EXPECT_EQ(phasor::HalfToFloat(0x3555), 0.333251953125f);  // 1365/4096
  EXPECT_EQ(phasor::HalfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(phasor::HalfToFloat(0x0400), std::ldexp(1.0f, -14));  // smallest normal
  EXPECT_EQ(phasor::HalfToFloat(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(phasor::HalfToFloat(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(phasor::HalfToFloat(0x8001), -std::ldexp(1.0f, -24));
  EXPECT_EQ(phasor::HalfToFloat(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(phasor::HalfToFloat(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(phasor::HalfToFloat(0x7E00)));
  EXPECT_TRUE(std::isnan(phasor::HalfToFloat(0x7C01)));  // signalling payload stays NaN
}

// Every finite half is exactly representable as float: compare to the formula.
TEST(SafetensorsHalf, AllFiniteValuesMatchFormula) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const int exponent = (bits >> 10) & 0x1f;
    if (exponent == 0x1f) continue;
    const int mantissa = bits & 0x3ff;
    double value =
        exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
    if (bits & 0x8000) value = -value;
    ASSERT_EQ(phasor::HalfToFloat(static_cast<uint16_t>(bits)), static_cast<float>(value))
        << std::hex << bits;
  }
}

TEST(SafetensorsBFloat16, KnownValues) {
  EXPECT_EQ(phasor::BFloat16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(phasor::BFloat16ToFloat(0xC040), -3.0f);
  EXPECT_EQ(phasor::BFloat16ToFloat(0x3E80), 0.25f);
  EXPECT_EQ(phasor::BFloat16ToFloat(0x0001), std::ldexp(1.0f, -133));  // float subnormal
  EXPECT_EQ(phasor::BFloat16ToFloat(0x7F80), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(phasor::BFloat16ToFloat(0x7FC0)));
}

TEST(SafetensorsLoad, F32F16BF16WithExactValues) {
  // a: F32 [2, 2] at [0, 16); h: F16 [5] at [16, 26); b: BF16 [3] at [26, 32).
  const std::string header = R"({"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
                             R"("h":{"dtype":"F16","shape":[5],"data_offsets":[16,26]},)"
                             R"("b":{"dtype":"BF16","shape":[3],"data_offsets":[26,32]},)"
                             R"("__metadata__":{"format":"pt"}})";
  const std::string data = F32Bytes(std::vector<float>{1.5f, -2.25f, 0.0f, 3e-8f}) +
                           U16Bytes({0x3C00, 0xC000, 0x7BFF, 0x0001, 0x7C00}) +
                           U16Bytes({0x3F80, 0xBF00, 0x4049});
  const std::string path = WriteFile("valid", header, data);

  const Weights w = phasor::LoadSafetensors(path);
  EXPECT_EQ(w.source(), path);
  EXPECT_EQ(w.Names(), (std::vector<std::string>{"a", "b", "h"}));

  const float* a = w.Require("a", {2, 2});
  EXPECT_EQ(a[0], 1.5f);
  EXPECT_EQ(a[1], -2.25f);
  EXPECT_EQ(a[2], 0.0f);
  EXPECT_EQ(a[3], 3e-8f);

  const float* h = w.Require("h", {5});
  EXPECT_EQ(h[0], 1.0f);
  EXPECT_EQ(h[1], -2.0f);
  EXPECT_EQ(h[2], 65504.0f);
  EXPECT_EQ(h[3], std::ldexp(1.0f, -24));
  EXPECT_EQ(h[4], std::numeric_limits<float>::infinity());

  const float* b = w.Require("b", {3});
  EXPECT_EQ(b[0], 1.0f);
  EXPECT_EQ(b[1], -0.5f);
  EXPECT_EQ(b[2], 3.140625f);  // 0x4049: 1.5703125 * 2
}

TEST(SafetensorsLoad, LargeF16AndBF16TensorsKeepEveryBitPattern) {
  // Every 16-bit pattern twice and 5 more (past the reader's chunks of 2^16
  // values), after a 3-value tensor so that the data starts unaligned: F16 as
  // HalfToFloat gives it, BF16 kept as stored.
  const int64_t n = 2 * 65536 + 5;
  std::vector<uint16_t> bits(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) bits[i] = static_cast<uint16_t>(i * 40503 + 7);
  const std::string bytes = U16Bytes(bits);
  const std::string count = std::to_string(n), h_end = std::to_string(6 + bytes.size()),
                    b_end = std::to_string(6 + 2 * bytes.size());
  const std::string header = R"({"s":{"dtype":"F16","shape":[3],"data_offsets":[0,6]},)"
                             R"("h":{"dtype":"F16","shape":[)" +
                             count + R"(],"data_offsets":[6,)" + h_end +
                             R"(]},"b":{"dtype":"BF16","shape":[)" + count +
                             R"(],"data_offsets":[)" + h_end + "," + b_end + "]}}";
  const std::string path =
      WriteFile("large_half", header, U16Bytes({0x3C00, 0x8001, 0x7C01}) + bytes + bytes);
  const Weights w = phasor::LoadSafetensors(path);
  const float* h = w.Require("h", {n});
  for (int64_t i = 0; i < n; ++i) {
    const float expected = phasor::HalfToFloat(bits[i]);
    ASSERT_EQ(std::memcmp(&h[i], &expected, 4), 0) << "value " << i << ", bits " << bits[i];
  }
  const uint16_t* b = w.RequireBf16("b", {n});
  ASSERT_NE(b, nullptr);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(b[i], bits[i]) << "value " << i;
  const float* s = w.Require("s", {3});
  EXPECT_EQ(s[0], 1.0f);
  EXPECT_EQ(s[1], -std::ldexp(1.0f, -24));
  uint32_t nan_bits;
  std::memcpy(&nan_bits, &s[2], 4);
  EXPECT_EQ(nan_bits, 0x7f802000u);  // a signalling NaN stays signalling, payload kept
}

TEST(SafetensorsLoad, PaddedHeaderScalarEmptyTensorAndTrailingBytes) {
  std::string header = R"({"s":{"dtype":"F32","shape":[],"data_offsets":[0,4]},)"
                       R"("e":{"dtype":"F16","shape":[0,3],"data_offsets":[4,4]}})";
  header.append(7, ' ');
  const std::string path =
      WriteFile("padded", header, F32Bytes(std::vector<float>{42.0f}) + "junk");
  const Weights w = phasor::LoadSafetensors(path);
  EXPECT_EQ(w.Require("s", {})[0], 42.0f);
  EXPECT_EQ(w.Get("e").shape, (phasor::Shape{0, 3}));
  EXPECT_TRUE(w.Get("e").data.empty());
}

TEST(SafetensorsLoad, EmptyHeaderObjectGivesNoTensors) {
  const Weights w = phasor::LoadSafetensors(WriteFile("empty_object", "{}", ""));
  EXPECT_TRUE(w.Names().empty());
}

TEST(SafetensorsRoundTrip, SaveThenLoadIsExact) {
  Weights w("memory");
  w.Add("layers.0.linear1.weight", {2, 3}, {1.0f, -2.0f, 3.5f, 1e-30f, -0.0f, 65536.25f});
  w.Add("embedding.weight", {3, 2}, {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f});
  w.Add("norm.bias", {1}, {std::numeric_limits<float>::denorm_min()});
  w.Add("empty", {0}, {});
  const std::string path = TempPath("round_trip");
  phasor::SaveSafetensors(path, w);

  // The header is padded to a multiple of 8 with spaces, as the reference does.
  std::ifstream in(path, std::ios::binary);
  unsigned char len_bytes[8];
  in.read(reinterpret_cast<char*>(len_bytes), 8);
  uint64_t len = 0;
  for (int i = 7; i >= 0; --i) len = (len << 8) | len_bytes[i];
  EXPECT_EQ(len % 8, 0u);
  std::string header(len, '\0');
  in.read(header.data(), static_cast<std::streamsize>(len));
  EXPECT_EQ(header.front(), '{');
  EXPECT_NE(header.find(R"("dtype":"F32")"), std::string::npos);
  EXPECT_LT(header.find("embedding.weight"), header.find("layers.0.linear1.weight"));

  const Weights back = phasor::LoadSafetensors(path);
  ASSERT_EQ(back.Names(), w.Names());
  for (const std::string& name : w.Names()) {
    EXPECT_EQ(back.Get(name).shape, w.Get(name).shape) << name;
    ASSERT_EQ(back.Get(name).data.size(), w.Get(name).data.size()) << name;
    EXPECT_EQ(F32Bytes(back.Get(name).data), F32Bytes(w.Get(name).data)) << name;  // bit-exact
  }
}

TEST(SafetensorsRoundTrip, EmptyWeights) {
  const std::string path = TempPath("round_trip_empty");
  phasor::SaveSafetensors(path, Weights());
  EXPECT_TRUE(phasor::LoadSafetensors(path).Names().empty());
}

TEST(SafetensorsSave, UnwritablePathIsAnError) {
  const std::string path = ::testing::TempDir() + "no_such_dir_phasor/model.safetensors";
  ExpectErrorContaining([&] { phasor::SaveSafetensors(path, Weights()); },
                        {"cannot write " + path, "No such file or directory"});
}

TEST(SafetensorsSave, NameThatIsNotUtf8IsAnError) {
  Weights w;
  w.Add("bad\xff", {1}, {1.0f});
  const std::string path = TempPath("bad_name");
  ExpectErrorContaining([&] { phasor::SaveSafetensors(path, w); }, {path, "UTF-8"});
}

TEST(SafetensorsLoad, MissingFile) {
  const std::string path = TempPath("does_not_exist");
  std::remove(path.c_str());
  ExpectErrorContaining([&] { phasor::LoadSafetensors(path); }, {path, "cannot open"});
}

TEST(SafetensorsLoad, Directory) {
  const std::string path = ::testing::TempDir();
  ExpectErrorContaining([&] { phasor::LoadSafetensors(path); }, {path, "directory"});
}

TEST(SafetensorsLoad, ShorterThanEightBytes) {
  const std::string path = TempPath("short");
  WriteBytes(path, std::string("\x05\0\0", 3));
  ExpectErrorContaining([&] { phasor::LoadSafetensors(path); }, {path, "3 bytes", "at least 8"});
}

TEST(SafetensorsLoad, HeaderLengthZero) {
  const std::string path = TempPath("len_zero");
  WriteBytes(path, U64(0) + "{}");
  ExpectErrorContaining([&] { phasor::LoadSafetensors(path); }, {path, "header length is 0"});
}

TEST(SafetensorsLoad, HeaderLengthPastEndOfFile) {
  const std::string path = TempPath("len_past_end");
  WriteBytes(path, U64(3) + "{}");
  ExpectErrorContaining([&] { phasor::LoadSafetensors(path); },
                        {path, "header length 3", "past the end", "expected <= 2"});
}

TEST(SafetensorsLoad, HeaderLengthAbsurd) {
  // 2^63 must be refused by comparison with the file size, before any allocation.
  const std::string path = TempPath("len_absurd");
  WriteBytes(path, U64(uint64_t{1} << 63) + "{}");
  ExpectErrorContaining([&] { phasor::LoadSafetensors(path); },
                        {path, "9223372036854775808", "past the end"});
  WriteBytes(path, U64(~uint64_t{0}) + "{}");
  ExpectErrorContaining([&] { phasor::LoadSafetensors(path); }, {path, "past the end"});
}

TEST(SafetensorsLoad, HeaderLengthOverLimit) {
  const std::string path = TempPath("len_over_limit");
  const uint64_t len = phasor::kSafetensorsMaxHeaderBytes + 8;
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << U64(len);
    out.seekp(static_cast<std::streamoff>(8 + len - 1));
    out.put(' ');  // a sparse file: no need to write 100 MB
  }
  ExpectErrorContaining([&] { phasor::LoadSafetensors(path); },
                        {path, "exceeds the limit", "100000000"});
}

// One malformed header (or data section) and the words its Error must contain
// besides the path.
struct BadCase {
  const char* name;
  std::string header;
  std::string data;
  std::vector<std::string> expected;
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class SafetensorsBadInputTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(SafetensorsBadInputTest, ThrowsErrorNamingFileAndProblem) {
  const BadCase& c = GetParam();
  const std::string path = WriteFile(std::string("bad_") + c.name, c.header, c.data);
  std::vector<std::string> expected = c.expected;
  expected.insert(expected.begin(), path);
  ExpectErrorContaining([&] { phasor::LoadSafetensors(path); }, expected);
}

const std::string kEight(8, '\0');

INSTANTIATE_TEST_SUITE_P(
    Safetensors, SafetensorsBadInputTest,
    ::testing::Values(
        BadCase{"not_json", "{\"a\": ", "", {"not valid JSON"}},
        BadCase{"trailing_garbage", "{} x", "", {"not valid JSON"}},
        BadCase{"invalid_utf8", "{\"\xff\": 1}", "", {"not valid JSON"}},
        BadCase{"not_object", "[1, 2]", "", {"expected a JSON object", "array"}},
        BadCase{"duplicate_tensor",
                R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                R"("w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                kEight,
                {"'w'", "appears twice"}},
        BadCase{"entry_not_object", R"({"w": 3})", "", {"'w'", "expected an object", "found 3"}},
        BadCase{"missing_dtype",
                R"({"w":{"shape":[1],"data_offsets":[0,4]}})",
                kEight,
                {"'w'", "missing field 'dtype'"}},
        BadCase{"missing_shape",
                R"({"w":{"dtype":"F32","data_offsets":[0,4]}})",
                kEight,
                {"'w'", "missing field 'shape'"}},
        BadCase{"missing_offsets",
                R"({"w":{"dtype":"F32","shape":[1]}})",
                kEight,
                {"'w'", "missing field 'data_offsets'"}},
        BadCase{"unknown_field",
                R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"extra":1}})",
                kEight,
                {"'w'", "unknown field 'extra'"}},
        BadCase{"dtype_not_string",
                R"({"w":{"dtype":32,"shape":[1],"data_offsets":[0,4]}})",
                kEight,
                {"'w'", "dtype", "expected a string", "found 32"}},
        BadCase{"unknown_dtype",
                R"({"w":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})",
                kEight,
                {"'w'", "'F64'", "expected F32, F16 or BF16"}},
        BadCase{"shape_not_array",
                R"({"w":{"dtype":"F32","shape":4,"data_offsets":[0,4]}})",
                kEight,
                {"'w'", "shape", "expected an array", "found 4"}},
        BadCase{"shape_float",
                R"({"w":{"dtype":"F32","shape":[1.0],"data_offsets":[0,4]}})",
                kEight,
                {"'w'", "shape[0]", "expected a non-negative integer", "found 1.0"}},
        BadCase{"shape_string",
                R"({"w":{"dtype":"F32","shape":["1"],"data_offsets":[0,4]}})",
                kEight,
                {"'w'", "shape[0]", "found \"1\""}},
        BadCase{"negative_dim",
                R"({"w":{"dtype":"F32","shape":[2,-1],"data_offsets":[0,0]}})",
                kEight,
                {"'w'", "shape[1]", "negative", "-1"}},
        BadCase{"shape_overflow",
                R"({"w":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,4]}})",
                kEight,
                {"'w'", "2^40"}},
        BadCase{"shape_over_int64",
                R"({"w":{"dtype":"F32","shape":[18446744073709551615],"data_offsets":[0,4]}})",
                kEight,
                {"'w'", "2^40"}},
        BadCase{"offsets_not_array",
                R"({"w":{"dtype":"F32","shape":[1],"data_offsets":4}})",
                kEight,
                {"'w'", "data_offsets", "two non-negative integers", "found 4"}},
        BadCase{"offsets_three",
                R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4,8]}})",
                kEight,
                {"'w'", "data_offsets", "found [0,4,8]"}},
        BadCase{"offsets_negative",
                R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}})",
                kEight,
                {"'w'", "data_offsets", "found [-4,0]"}},
        BadCase{"offsets_float",
                R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4.0]}})",
                kEight,
                {"'w'", "data_offsets", "found [0,4.0]"}},
        BadCase{"begin_after_end",
                R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[8,4]}})",
                kEight,
                {"'w'", "[8, 4]", "begin <= end"}},
        BadCase{"end_past_data",
                R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
                kEight,
                {"'w'", "end 16", "past the end of the data section", "expected <= 8"}},
        BadCase{"end_huge",
                R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,18446744073709551615]}})",
                kEight,
                {"'w'", "past the end of the data section"}},
        BadCase{"size_mismatch",
                R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
                kEight,
                {"'w'", "span 8 bytes", "expected 12", "[3]", "F32"}},
        BadCase{"size_mismatch_f16",
                R"({"w":{"dtype":"F16","shape":[2,2],"data_offsets":[0,4]}})",
                kEight,
                {"'w'", "span 4 bytes", "expected 8", "[2, 2]", "F16"}},
        BadCase{"overlap",
                R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                kEight,
                {"'a'", "'b'", "overlap"}},
        BadCase{"same_range",
                R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                R"("b":{"dtype":"BF16","shape":[4],"data_offsets":[0,8]}})",
                kEight,
                {"'a'", "'b'", "overlap"}},
        BadCase{"metadata_not_object", R"({"__metadata__": [1]})", "", {"__metadata__"}},
        BadCase{"metadata_not_strings",
                R"({"__metadata__": {"format": 1}})",
                "",
                {"__metadata__", "'format'", "expected a string"}},
        BadCase{"control_char_name",
                "{\"bad\\nname\": 3}",
                "",
                {"'bad\\x0aname'", "expected an object"}}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

TEST(SafetensorsLoad, DeeplyNestedHeaderIsAnErrorNotACrash) {
  std::string header = "{\"w\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  const std::string path = WriteFile("deep", header, "");
  ExpectErrorContaining([&] { phasor::LoadSafetensors(path); }, {path, "nested deeper"});
}

}  // namespace

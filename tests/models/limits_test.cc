// Sizes from outside that would need absurd memory are refused with a clear
// error before anything is allocated: configs, model directories, token lines.
#include "tests/support/limits.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "engine/error.h"
#include "engine/memory_limit.h"
#include "models/config.h"
#include "models/encoder.h"
#include "models/input_rules.h"
#include "models/tokens.h"
#include "models/toy.h"

namespace phasor {
namespace {

using testing::ErrorOf;
using testing::ScopedLimit;

// A model directory whose config is text and whose weights file is empty.
std::string ModelDir(const std::string& name, const std::string& config) {
  const std::string dir = ::testing::TempDir() + "phasor_limits_" + name;
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/config.json") << config;
  std::ofstream st(dir + "/model.safetensors", std::ios::binary);
  st.write("\x02\0\0\0\0\0\0\0{}", 10);
  return dir;
}

TEST(Limits, ModelBytesCountsWeightsAndTable) {
  ModelConfig c;
  c.vocab_size = 10;
  c.d_model = 4;
  c.n_layers = 2;
  c.d_ff = 8;
  c.positional.max_len = 16;
  // 10*4 + 2*(4*16 + 2*32 + 36 + 8) + 16*4 table = 40 + 344 + 64 floats.
  EXPECT_EQ(ModelBytes(c), 4u * (40 + 344 + 64));
  c.positional.mode = PeMode::kOnTheFly;
  EXPECT_EQ(ModelBytes(c), 4u * (40 + 344));
}

TEST(Limits, AbsurdConfigSizesAreRangeErrors) {
  for (const char* key : {"d_model", "vocab_size", "d_ff", "n_layers"}) {
    const std::string text = std::string(R"({"vocab_size": 8, "d_model": 4, "n_heads": 1,
        "n_layers": 1, "d_ff": 8, ")") +
                             key + R"(": 1099511627776})";
    EXPECT_NE(ErrorOf([&] { ParseConfig(text, "c.json"); }).find(std::string("'") + key + "'"),
              std::string::npos)
        << key;
  }
  EXPECT_NE(ErrorOf([] {
              ParseConfig(R"({"vocab_size": 8, "d_model": 4, "n_heads": 1, "n_layers": 1,
                  "d_ff": 8, "positional": {"max_len": 9223372036854775807}})",
                          "c.json");
            }).find("positional.max_len"),
            std::string::npos);
}

// The fuzz finding regressions/model_oom_pe_table_before_weights: a config with
// an 8 GiB PE table and an empty weights file made the encoder allocate the
// table before finding the weights missing. Now the config is refused first.
TEST(Limits, HugeModelConfigIsRefusedBeforeTheWeightsAreRead) {
  const ScopedLimit limit(uint64_t{1} << 30);
  const std::string dir = ModelDir("huge_table", R"({"vocab_size": 8, "d_model": 32768,
      "n_heads": 1, "n_layers": 1, "d_ff": 8, "positional": {"max_len": 65536}})");
  const std::string e = ErrorOf([&] { Encoder::Load(dir); });
  EXPECT_NE(e.find(dir + "/config.json: the model (vocab_size 8, d_model 32768"), std::string::npos)
      << e;
  EXPECT_NE(e.find("more than the memory limit of 1 GiB"), std::string::npos) << e;
}

TEST(Limits, ModelWithinTheLimitStillFailsOnlyForItsMissingWeights) {
  const ScopedLimit limit(uint64_t{1} << 30);
  const std::string dir = ModelDir("small", R"({"vocab_size": 8, "d_model": 4, "n_heads": 1,
      "n_layers": 1, "d_ff": 8})");
  EXPECT_NE(ErrorOf([&] { Encoder::Load(dir); }).find("missing tensor"), std::string::npos);
}

// One long line and many short ones: parsed packed (2,000 ids), while their
// padded form (1001 x 1000 ids) is checked against the limit.
TEST(Limits, PaddedTokenBatchIsCheckedAgainstTheLimit) {
  std::string text(2000, ' ');
  for (size_t i = 0; i < text.size(); i += 2) text[i] = '1';
  for (int i = 0; i < 1000; ++i) text += "\n1";
  const ScopedLimit limit(uint64_t{1} << 20);
  TokenBatch b;
  ASSERT_NO_THROW(b = ParseTokens(text, "t.txt"));
  EXPECT_EQ(b.ids.size(), 2000u);
  EXPECT_NE(
      ErrorOf([&] { b.Padded(0); }).find("a padded batch of 1001 x 1000 token ids needs 3.8 MiB"),
      std::string::npos);
}

TEST(Limits, TokenIdsAreDigitsOnly) {
  for (const char* bad : {"\v5", "5\v", " -", "--5", "5-"}) {
    EXPECT_NE(ErrorOf([&] { ParseTokens(std::string("1 ") + bad, "t"); }).find("not a token id"),
              std::string::npos)
        << bad;
  }
  // Control bytes are escaped in the message (one line on a terminal).
  EXPECT_NE(ErrorOf([] { ParseTokens("\x1b[2J", "t", 0); }).find("'\\x1b[2J'"), std::string::npos);
}

// One call's limits, for every front end: 2^26 tokens, 2^31 output values.
TEST(Limits, OneCallHoldsAtMost2To26TokensAnd2To31Values) {
  const int64_t t = int64_t{1} << 26;
  EXPECT_TRUE(FitsOneCall(1, t, 32, false));      // 2^26 tokens x 32 = 2^31 values
  EXPECT_FALSE(FitsOneCall(1, t + 1, 1, false));  // one token too many
  EXPECT_FALSE(FitsOneCall(1, t, 33, false));     // 2^31 + 2^26 values
  EXPECT_TRUE(FitsOneCall(1 << 13, 1 << 13, 32, false));
  EXPECT_FALSE(FitsOneCall(1 << 13, (1 << 13) + 1, 1, false));
  EXPECT_TRUE(FitsOneCall(t, 1, 32, true));       // pooled: a row a sequence
  EXPECT_FALSE(FitsOneCall(t / 2, 2, 65, true));  // 2^25 rows x 65 > 2^31
  EXPECT_FALSE(FitsOneCall(int64_t{1} << 40, int64_t{1} << 40, 1, true));  // no overflow
  EXPECT_EQ(TooLargeForOneCall("a batch of 3 tokens"),
            "a batch of 3 tokens is too large for one call (at most 2^26 tokens and 2^31 output "
            "values)");
  const int64_t good[] = {0, 2, 2, 5}, late[] = {1, 2}, down[] = {0, 4, 3};
  EXPECT_NO_THROW(CheckOffsets(good, 3));
  EXPECT_EQ(ErrorOf([&] { CheckOffsets(late, 1); }), "offsets[0] must be 0, got 1");
  EXPECT_EQ(ErrorOf([&] { CheckOffsets(down, 2); }),
            "offsets must not decrease: offsets[2] = 3 < offsets[1] = 4");
}

TEST(Limits, EncoderWorkspaceIsCheckedAgainstTheLimit) {
  const ModelConfig c = ToyConfig();
  Encoder enc(c, ToyWeights(c));
  // Per token: 5·d_model floats of activations, one int64 length, one int32
  // id and one int32 token type; keys and values 2·d_model floats a token, and 16 more such rows
  // for every 128 tokens (the room of the key panels): 1000 + 7·16 rows.
  const uint64_t d = static_cast<uint64_t>(c.d_model);
  EXPECT_EQ(enc.WorkspaceBytes(1000),
            1000u * (5u * 4u * d + 16u) + (1000u + 7u * 16u) * 2u * 4u * d);
  EXPECT_EQ(enc.WorkspaceBytes(int64_t{1} << 62), UINT64_MAX);
  ScopedLimit limit(uint64_t{1} << 20);
  const std::string e = ErrorOf([&] { enc.MakeWorkspace(100000); });
  EXPECT_NE(e.find("the encoder workspace for 100000 tokens"), std::string::npos) << e;
  EXPECT_NE(e.find("memory limit of 1 MiB"), std::string::npos) << e;
  EXPECT_NO_THROW(enc.MakeWorkspace(16));
  EXPECT_THROW(enc.MakeWorkspace(-1), Error);
}

// At bf16 the keys and values are packed in bfloat16 panels of 32: for heads
// 64 wide they take less room than in float32, for heads of 1 far more, and
// the estimate checked against the limit says so.
TEST(Limits, EncoderWorkspaceCountsPackedKeysAndValues) {
  ModelConfig c = ToyConfig();  // d_model 256
  const uint64_t d = static_cast<uint64_t>(c.d_model), tokens = 1024;
  const uint64_t rows =
      tokens * static_cast<uint64_t>(Linear::ScratchBytes(Precision::kBf16, 1, c.d_model));
  const uint64_t fp32_kv = tokens * 2 * d * 4;
  c.n_heads = 4;  // heads of 64
  const Encoder wide(c, ToyWeights(c), Precision::kBf16), wide32(c, ToyWeights(c));
  EXPECT_LT(wide.WorkspaceBytes(tokens) - rows, wide32.WorkspaceBytes(tokens));
  c.n_heads = c.d_model;  // heads of 1
  const Encoder narrow(c, ToyWeights(c), Precision::kBf16);
  EXPECT_GT(narrow.WorkspaceBytes(tokens) - rows, wide32.WorkspaceBytes(tokens) + 4 * fp32_kv);
  EXPECT_EQ(narrow.WorkspaceBytes(int64_t{1} << 62), UINT64_MAX);
}

TEST(Limits, CachedRopeTableIsCheckedAgainstTheLimit) {
  RopeOptions o;
  o.d_head = 64;
  o.mode = PeMode::kCached;
  o.max_len = 1 << 20;  // 1M x 64 floats: 256 MiB
  ScopedLimit limit(uint64_t{64} << 20);
  const std::string e = ErrorOf([&] { Rope rope(o); });
  EXPECT_NE(e.find("a cached RoPE table of 1048576 x 64 floats"), std::string::npos) << e;
  EXPECT_NE(e.find("memory limit"), std::string::npos) << e;
  o.mode = PeMode::kOnTheFly;
  EXPECT_NO_THROW(Rope rope(o));
}

TEST(Limits, CachedSinusoidalTableIsCheckedAgainstTheLimit) {
  SinusoidalOptions o;
  o.d_model = 512;
  o.mode = PeMode::kAuto;
  o.max_len = 1 << 16;  // 64K x 512 floats: 128 MiB
  ScopedLimit limit(uint64_t{64} << 20);
  const std::string e = ErrorOf([&] { SinusoidalEncoding pe(o); });
  EXPECT_NE(e.find("a cached PE table of 65536 x 512 floats needs 128 MiB"), std::string::npos)
      << e;
  o.mode = PeMode::kOnTheFly;
  EXPECT_NO_THROW(SinusoidalEncoding pe(o));
}

}  // namespace
}  // namespace phasor

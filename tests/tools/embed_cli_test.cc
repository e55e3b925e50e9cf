// `phasor embed` run as a user runs it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <utility>

#include "tests/support/run.h"

namespace phasor {
namespace {

using testing::RunPhasor;

TEST(EmbedCliTest, JsonHasTheContractKeys) {
  const auto r = RunPhasor("embed --seq-len 5000 --d-model 64 --chunk 300 --repeat 3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key :
       {"seq_len", "d_model", "pe_mode", "seconds", "tokens_per_s", "gb_per_s", "table_seconds"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["seq_len"], 5000);
  EXPECT_EQ(j["pe_mode"], "on_the_fly");
  EXPECT_GT(j["seconds"].get<double>(), 0.0);
  EXPECT_TRUE(r.err.empty()) << r.err;
}

// The last row does not depend on how the sequence is chunked or on the mode.
TEST(EmbedCliTest, ChunkingAndModeDoNotChangeTheResult) {
  double sum = 0;
  bool first = true;
  for (const char* extra :
       {"--chunk 7", "--chunk 1000", "--pe-mode cached", "--pe-mode auto --max-len 100"}) {
    const auto r = RunPhasor(std::string("embed --seq-len 3001 --d-model 32 --json ") + extra);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const double s = nlohmann::json::parse(r.out)["last_row_sum"].get<double>();
    if (first) sum = s;
    EXPECT_NEAR(s, sum, 1e-5) << extra;
    first = false;
  }
}

TEST(EmbedCliTest, BadSizesAreUsageErrorsNamingTheOption) {
  const std::pair<const char*, const char*> cases[] = {
      {"embed --seq-len 0", "--seq-len must be in [1, 1099511627776], got 0"},
      {"embed --seq-len -5", "--seq-len must be in [1, 1099511627776], got -5"},
      {"embed --seq-len ten", "--seq-len: 'ten' is not a size"},
      {"embed --seq-len 10 --chunk 0", "--chunk must be in [1, 1073741824], got 0"},
      {"embed --seq-len 10 --chunk -1", "--chunk must be in [1, 1073741824], got -1"},
      {"embed --seq-len 10 --d-model 7", "--d-model must be even, got 7"},
      {"embed --seq-len 10 --d-model -2", "--d-model must be in [2, 65536], got -2"},
      {"embed --seq-len 100000000000 --pe-mode cached", "a cached PE table of 100000000000 rows"},
      {"embed --seq-len 10 --vocab 0", "--vocab must be in [1, 2147483648], got 0"},
      {"embed --seq-len 10 --max-len 0", "--max-len must be in"},
      {"embed --seq-len 10 --pe-mode sometimes", "--pe-mode"},
      {"embed --seq-len 10 --vocab 100000000 --d-model 4096",
       "--vocab × --d-model is over 2^30 floats"}};
  for (const auto& [args, fragment] : cases) {
    const auto r = RunPhasor(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    testing::ExpectOneErrorLine(r);
    EXPECT_NE(r.err.find(fragment), std::string::npos) << args << ": " << r.err;
  }
}

TEST(EmbedCliTest, BuffersOverTheMemoryLimitAreOneErrorLine) {
  // A cached table of 1M x 512 floats (2 GiB) against a 1 GiB limit.
  const auto r =
      RunPhasor("embed --max-memory 1G --seq-len 1048576 --d-model 512 --pe-mode cached");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  testing::ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("--vocab, the PE table and --chunk needs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("memory limit of 1 GiB"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace phasor

// `phasor embed` run as a user runs it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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

TEST(EmbedCliTest, BadSizesAreUsageErrors) {
  for (const char* args :
       {"embed --seq-len 0", "embed --seq-len -5", "embed --seq-len ten",
        "embed --seq-len 10 --chunk 0", "embed --seq-len 10 --d-model 7",
        "embed --seq-len 10 --d-model -2", "embed --seq-len 100000000000 --pe-mode cached",
        "embed --seq-len 10 --vocab 0", "embed --seq-len 10 --pe-mode sometimes",
        "embed --seq-len 10 --vocab 100000000 --d-model 4096"}) {
    const auto r = RunPhasor(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    testing::ExpectOneErrorLine(r);
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

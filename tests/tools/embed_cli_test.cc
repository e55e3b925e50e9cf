// `phasor embed` run as a user runs it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "engine/npy.h"
#include "models/random_sequence.h"
#include "tests/support/pe_reference.h"
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
  // On the fly no table is built: no time and no rows for one.
  EXPECT_EQ(j["table_seconds"].get<double>(), 0.0);
  EXPECT_EQ(j["table_rows"], 0);
  const auto cached = nlohmann::json::parse(
      RunPhasor("embed --seq-len 5000 --d-model 64 --pe-mode cached --json").out);
  EXPECT_GT(cached["table_seconds"].get<double>(), 0.0);
  EXPECT_EQ(cached["table_rows"], 5000);
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
      {"embed --seq-len 100000000000 --pe-mode cached",
       "a cached PE table holds at most 2^30 values (4 GiB); 100000000000 rows x 512 (--seq-len "
       "x --d-model) is more: use --pe-mode on_the_fly or auto"},
      {"embed --seq-len 10 --pe-mode auto --max-len 4M --d-model 512",
       "a cached PE table holds at most 2^30 values (4 GiB); 4194304 rows x 512 (--max-len x "
       "--d-model) is more: use --pe-mode on_the_fly, or a smaller --max-len"},
      {"embed --seq-len 10 --vocab 0", "--vocab must be in [1, 2147483647], got 0"},
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

// --output: row j is the token row of RandomTokenId(j) plus the PE of position
// j (the long double formula), and the same bits however the rows are chunked.
TEST(EmbedCliTest, OutputRowsAreTokenRowsPlusPe) {
  const std::string a = ::testing::TempDir() + "embed_output_a.npy";
  const std::string b = ::testing::TempDir() + "embed_output_b.npy";
  const int64_t n = 300, d = 16, vocab = 50;
  auto r = RunPhasor("embed --seq-len 300 --d-model 16 --vocab 50 --chunk 7 --output " + a);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunPhasor("embed --seq-len 300 --d-model 16 --vocab 50 --pe-mode cached --output " + b);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const NpyArray rows = ReadNpy(a);
  ASSERT_EQ(rows.shape, (std::vector<int64_t>{n, d}));
  EXPECT_EQ(testing::ReadFile(a), testing::ReadFile(b));
  std::vector<float> table(static_cast<size_t>(vocab * d));
  FillRandomTokenTable(vocab, d, table.data());
  double err = 0;
  for (int64_t j = 0; j < n; ++j) {
    const auto pe = testing::RefPeRow(j, d, 10000.0L, testing::RefLayout::kInterleaved,
                                      testing::RefDenominator::kDModel);
    const int32_t id = RandomTokenId(j, vocab);
    for (int64_t k = 0; k < d; ++k) {
      const double want = static_cast<double>(table[id * d + k]) + static_cast<double>(pe[k]);
      err = std::max(err, std::fabs(static_cast<double>(rows.data[j * d + k]) - want));
    }
  }
  EXPECT_LE(err, 3e-6);
}

TEST(EmbedCliTest, OutputErrors) {
  for (const char* args : {"embed --seq-len 10 --d-model 16 --output rows.csv",
                           "embed --seq-len 100000000 --d-model 16 --output rows.npy"}) {
    const auto r = RunPhasor(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    testing::ExpectOneErrorLine(r);
  }
}

}  // namespace
}  // namespace phasor

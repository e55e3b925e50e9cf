// `phasor encode` refuses what ids and sizes alone decide before it allocates
// anything for the batch: a line of 10^6 ids on a model whose cached PE table
// holds 64 rows is refused for its position 64, under a memory limit far below
// what the workspace and output of that line would need (about 2 GB).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/run.h"

namespace phasor {
namespace {

using testing::ExpectOneErrorLine;
using testing::ReadFile;
using testing::RunPhasor;

// A one-layer d_model 64 toy model whose config has each `from` replaced by its `to`.
std::string SmallModel(const std::string& name,
                       const std::vector<std::pair<std::string, std::string>>& edits) {
  const std::string dir = ::testing::TempDir() + "phasor_encode_limits_" + name;
  std::filesystem::remove_all(dir);
  const auto r = RunPhasor("make-toy --out " + dir +
                           " --vocab 100 --d-model 64 --n-heads 2 --n-layers 1 --d-ff 128");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string config = ReadFile(dir + "/config.json");
  for (const auto& [from, to] : edits) {
    const size_t at = config.find(from);
    EXPECT_NE(at, std::string::npos) << "the toy config has no " << from;
    if (at != std::string::npos) config.replace(at, from.size(), to);
  }
  std::ofstream(dir + "/config.json") << config;
  return dir;
}

// Encodes one line of 10^6 ids, the last one `last`, under a 100 MB memory limit.
testing::RunResult EncodeLongLine(const std::string& model, const std::string& last) {
  const std::string path = ::testing::TempDir() + "phasor_encode_limits_line.txt";
  {
    std::ofstream out(path);
    for (int64_t j = 0; j + 1 < 1000000; ++j) out << "7 ";
    out << last << "\n";
  }
  const auto r = RunPhasor("encode --max-memory 100M --model " + model + " --tokens-file " + path);
  EXPECT_EQ(r.exit_code, 1);
  ExpectOneErrorLine(r);
  return r;
}

TEST(EncodeLimitsCliTest, PositionPastCachedTableIsRefusedBeforeAllocation) {
  const auto r =
      EncodeLongLine(SmallModel("cached64", {{R"("max_len": 4096)", R"("max_len": 64)"},
                                             {R"("mode": "auto")", R"("mode": "cached")"}}),
                     "7");
  EXPECT_NE(r.err.find("line 1 has 1000000 tokens, more than the 64 positions of the model's "
                       "cached PE table (max_len 64, from position 0)"),
            std::string::npos)
      << r.err;
}

TEST(EncodeLimitsCliTest, IdOutsideVocabularyIsRefusedBeforeAllocation) {
  const auto r = EncodeLongLine(
      SmallModel("vocab", {{R"("mode": "auto")", R"("mode": "on_the_fly")"}}), "100");
  EXPECT_NE(r.err.find("token id 100"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("outside the vocabulary"), std::string::npos) << r.err;
}

// With valid ids and positions, the same line is refused by the memory limit,
// naming what it would need: the limit applies, but only after the checks above.
TEST(EncodeLimitsCliTest, ValidLongLineMeetsTheMemoryLimit) {
  const auto r =
      EncodeLongLine(SmallModel("auto", {{R"("mode": "auto")", R"("mode": "on_the_fly")"}}), "7");
  EXPECT_NE(r.err.find("more than the memory limit"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace phasor

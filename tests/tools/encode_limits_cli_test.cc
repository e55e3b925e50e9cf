// `phasor encode` refuses what ids and sizes alone decide before it allocates
// anything for the batch: a line of 10^6 ids on a model whose cached PE table
// holds 64 rows is refused for its position 64, under a memory limit far below
// what the workspace and output of that line would need (about 2 GB).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/run.h"

namespace phasor {
namespace {

using testing::ExpectOneErrorLine;
using testing::ReadFile;
using testing::RunPhasor;

// A one-layer d_model 64 toy model with `from` replaced by `to` in its config.
std::string SmallModel(const std::string& name, const std::string& from, const std::string& to,
                       bool fresh = true) {
  const std::string dir = ::testing::TempDir() + "phasor_encode_limits_" + name;
  if (!fresh) {
    std::string config = ReadFile(dir + "/config.json");
    const size_t at = config.find(from);
    EXPECT_NE(at, std::string::npos) << "the toy config has no " << from;
    if (at != std::string::npos) config.replace(at, from.size(), to);
    std::ofstream(dir + "/config.json") << config;
    return dir;
  }
  std::filesystem::remove_all(dir);
  const auto r = RunPhasor("make-toy --out " + dir +
                           " --vocab 100 --d-model 64 --n-heads 2 --n-layers 1 --d-ff 128");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string config = ReadFile(dir + "/config.json");
  std::string edited = config;
  const size_t at = edited.find(from);
  if (at != std::string::npos) edited.replace(at, from.size(), to);
  EXPECT_NE(edited, config) << "the toy config has no " << from;
  std::ofstream(dir + "/config.json") << edited;
  return dir;
}

std::string LongLine(const std::string& name, int64_t n, const std::string& last) {
  const std::string path = ::testing::TempDir() + "phasor_encode_limits_" + name + ".txt";
  std::ofstream out(path);
  for (int64_t j = 0; j + 1 < n; ++j) out << "7 ";
  out << last << "\n";
  return path;
}

TEST(EncodeLimitsCliTest, PositionPastCachedTableIsRefusedBeforeAllocation) {
  SmallModel("cached64", R"("max_len": 4096)", R"("max_len": 64)");
  const std::string model =
      SmallModel("cached64", R"("mode": "auto")", R"("mode": "cached")", false);
  const std::string tokens = LongLine("million", 1000000, "7");
  const auto r =
      RunPhasor("encode --max-memory 100M --model " + model + " --tokens-file " + tokens);
  EXPECT_EQ(r.exit_code, 1);
  ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("position 64 is past the cached PE table (max_len 64)"), std::string::npos)
      << r.err;
}

TEST(EncodeLimitsCliTest, IdOutsideVocabularyIsRefusedBeforeAllocation) {
  const std::string model = SmallModel("vocab", R"("mode": "auto")", R"("mode": "on_the_fly")");
  const std::string tokens = LongLine("vocab", 1000000, "100");
  const auto r =
      RunPhasor("encode --max-memory 100M --model " + model + " --tokens-file " + tokens);
  EXPECT_EQ(r.exit_code, 1);
  ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("token id 100"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("outside the vocabulary"), std::string::npos) << r.err;
}

// With valid ids and positions, the same line is refused by the memory limit,
// naming what it would need: the limit applies, but only after the checks above.
TEST(EncodeLimitsCliTest, ValidLongLineMeetsTheMemoryLimit) {
  const std::string model = SmallModel("auto", R"("mode": "auto")", R"("mode": "on_the_fly")");
  const std::string tokens = LongLine("valid", 1000000, "7");
  const auto r =
      RunPhasor("encode --max-memory 100M --model " + model + " --tokens-file " + tokens);
  EXPECT_EQ(r.exit_code, 1);
  ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("more than the memory limit"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace phasor

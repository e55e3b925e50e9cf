// `phasor pe` run as a user runs it.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "engine/npy.h"
#include "tests/support/pe_reference.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

using testing::RunPhasor;

TEST(PeCliTest, NpyHoldsTheTable) {
  const std::string path = ::testing::TempDir() + "pe_cli.npy";
  const auto r = RunPhasor("pe --d-model 8 --length 3 --start 1 --output " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const NpyArray a = ReadNpy(path);
  ASSERT_EQ(a.shape, (std::vector<int64_t>{3, 8}));
  for (int64_t j = 0; j < 3; ++j) {
    const auto ref = testing::RefPeRow(1 + j, 8, 10000.0L, testing::RefLayout::kInterleaved,
                                       testing::RefDenominator::kDModel);
    for (int k = 0; k < 8; ++k) EXPECT_NEAR(a.data[j * 8 + k], static_cast<double>(ref[k]), 2e-6);
  }
  // Row 0 is position 1: the worked vector.
  EXPECT_NEAR(a.data[0], 0.841, 5e-4);
  EXPECT_NEAR(a.data[7], 0.9999995, 1e-7);
}

TEST(PeCliTest, SplitHalfMinusOneAtLargeStart) {
  const std::string path = ::testing::TempDir() + "pe_cli_split.npy";
  const auto r = RunPhasor(
      "pe --d-model 16 --length 4 --start 16777212 --layout split --denominator half_minus_one "
      "--base 500 --mode cached --output " +
      path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const NpyArray a = ReadNpy(path);
  ASSERT_EQ(a.shape, (std::vector<int64_t>{4, 16}));
  for (int64_t j = 0; j < 4; ++j) {
    const auto ref = testing::RefPeRow(16777212 + j, 16, 500.0L, testing::RefLayout::kSplit,
                                       testing::RefDenominator::kHalfMinusOne);
    for (int k = 0; k < 16; ++k) EXPECT_NEAR(a.data[j * 16 + k], static_cast<double>(ref[k]), 2e-6);
  }
}

TEST(PeCliTest, CsvShowsTheWorkedVectorInRowOne) {
  const std::string path = ::testing::TempDir() + "pe_cli.csv";
  const auto r = RunPhasor("pe --d-model 8 --length 2 --output " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string csv = testing::ReadFile(path);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "position,0,1,2,3,4,5,6,7");
  // Row 1 (position 1), parsed back: the worked vector to the digits published.
  const size_t row1 = csv.find("\n1,");
  ASSERT_NE(row1, std::string::npos) << csv;
  std::istringstream line(csv.substr(row1 + 3, csv.find('\n', row1 + 1) - row1 - 3));
  const double expected[8] = {0.841, 0.540, 0.0998, 0.995, 0.0100, 0.99995, 0.0010, 0.9999995};
  const double digits[8] = {5e-4, 5e-4, 5e-5, 5e-4, 5e-5, 5e-6, 5e-5, 5e-8};
  for (int k = 0; k < 8; ++k) {
    std::string cell;
    ASSERT_TRUE(std::getline(line, cell, ',')) << csv;
    EXPECT_NEAR(std::stod(cell), expected[k], digits[k] + 6e-8) << "column " << k;
  }
}

TEST(PeCliTest, PngIsWritten) {
  const std::string path = ::testing::TempDir() + "pe_cli.png";
  const auto r = RunPhasor("pe --d-model 128 --length 256 --output " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string png = testing::ReadFile(path);
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
}

TEST(PeCliTest, UsageErrorsExitTwoWithOneLine) {
  for (const char* args :
       {"pe --d-model 7 --length 2", "pe --d-model 8 --length 0", "pe --d-model 8 --length -3",
        "pe --d-model 8 --length abc", "pe --d-model 8 --length 2 --base 1",
        "pe --d-model 8 --length 2 --layout diagonal",
        "pe --d-model 2 --length 2 --denominator half_minus_one",
        "pe --d-model 8 --length 2 --mode sometimes", "pe --d-model 8 --length 2 --output x.txt",
        "pe --d-model 65536 --length 100000000", "pe --length 2",
        "pe --d-model 8 --length 2 --start -1", "frobnicate"}) {
    const auto r = RunPhasor(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    testing::ExpectOneErrorLine(r);
  }
}

TEST(PeCliTest, UnwritableOutputIsAnError) {
  const auto r = RunPhasor("pe --d-model 8 --length 2 --output /nonexistent/dir/x.npy");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  testing::ExpectOneErrorLine(r);
}

TEST(PeCliTest, HelpExplainsEveryOption) {
  const auto r = RunPhasor("pe --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* opt : {"--d-model", "--length", "--start", "--base", "--layout", "--denominator",
                          "--mode", "--output"}) {
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
  }
}

TEST(PeCliTest, TableOverTheMemoryLimitIsOneErrorLine) {
  // 100000 x 512 floats: 195 MiB.
  const auto r = RunPhasor("--max-memory 64M pe --d-model 512 --length 100000");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  testing::ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("--length 100000 x --d-model 512: the table needs 195.3 MiB, more than "
                       "the memory limit of 64 MiB"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace phasor

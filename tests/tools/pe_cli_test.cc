// `phasor pe` run as a user runs it.
#include <gd.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine/npy.h"
#include "tests/support/max_error.h"
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
      "--base 500 --mode auto --output " +
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

// Rows of `pe ARGS --output FILE.npy`, checked against the long double formula
// (interleaved, denominator d_model, base 10000) within 2e-6.
NpyArray RowsMatchingTheFormula(const std::string& args, const std::string& name, int64_t start,
                                int64_t length, int64_t d_model) {
  const std::string path = ::testing::TempDir() + name + ".npy";
  const auto r = RunPhasor("pe " + args + " --output " + path);
  EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
  NpyArray a;
  if (r.exit_code != 0) return a;
  a = ReadNpy(path);
  std::remove(path.c_str());
  EXPECT_EQ(a.shape, (std::vector<int64_t>{length, d_model})) << args;
  if (a.shape != std::vector<int64_t>{length, d_model}) return a;
  testing::MaxError worst(d_model);
  for (int64_t j = 0; j < length; ++j) {
    const auto ref =
        testing::RefPeRow(start + j, d_model, 10000.0L, testing::RefLayout::kInterleaved,
                          testing::RefDenominator::kDModel);
    for (int64_t k = 0; k < d_model; ++k) {
      worst.Add(j * d_model + k, a.data[j * d_model + k], ref[k]);
    }
  }
  EXPECT_LE(worst, 2e-6) << args;
  return a;
}

// Mode auto reads a table of --max-len rows (default 4096) and computes the
// positions past it, as a model's encoding does: a start far past the table
// needs no table that large.
TEST(PeCliTest, AutoComputesPositionsPastTheTable) {
  RowsMatchingTheFormula("--mode auto --start 9999991 --length 8 --d-model 512", "pe_cli_auto",
                         9999991, 8, 512);
}

// The last rows accepted (positions 2^40 - 3 .. 2^40 - 1), in both modes that
// reach them: as exact as rows near 0.
TEST(PeCliTest, LastPositionsMatchTheFormula) {
  for (const std::string mode : {"on_the_fly", "auto"}) {
    RowsMatchingTheFormula("--mode " + mode + " --start 1099511627773 --length 3 --d-model 512",
                           "pe_cli_last_" + mode, 1099511627773, 3, 512);
  }
}

// --max-len sets the table of the sinusoidal kind too: rows 95..104 across the
// end of a 100-row table in mode auto are those of a table that holds them all,
// and those computed on the fly, bit for bit.
TEST(PeCliTest, MaxLenSetsTheSinusoidalTable) {
  const std::string rows = "--d-model 16 --start 95 --length 10";
  const NpyArray across =
      RowsMatchingTheFormula(rows + " --mode auto --max-len 100", "pe_cli_across", 95, 10, 16);
  const NpyArray cached =
      RowsMatchingTheFormula(rows + " --mode cached --max-len 105", "pe_cli_cached", 95, 10, 16);
  const NpyArray direct =
      RowsMatchingTheFormula(rows + " --mode on_the_fly", "pe_cli_on_the_fly", 95, 10, 16);
  EXPECT_EQ(across.data, cached.data);
  EXPECT_EQ(across.data, direct.data);
}

TEST(PeCliTest, CachedPastTheTableIsAUsageErrorNamingMaxLen) {
  const std::pair<const char*, const char*> cases[] = {
      {"pe --d-model 8 --start 95 --length 10 --mode cached --max-len 100",
       "--start + --length 105 is past the cached table (--max-len 100); raise --max-len or use "
       "--mode auto or on_the_fly"},
      {"pe --d-model 8 --start 4090 --length 8 --mode cached",
       "--start + --length 4098 is past the cached table (--max-len 4096)"},
      {"pe --d-model 8 --length 2 --mode auto --max-len -1", "--max-len must be >= 0, got -1"},
      {"pe --d-model 8 --length 2 --start 1099511627775",
       "--start 1099511627775 + --length 2 is past the largest position (2^40)"}};
  for (const auto& [args, fragment] : cases) {
    const auto r = RunPhasor(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    testing::ExpectOneErrorLine(r);
    EXPECT_NE(r.err.find(fragment), std::string::npos) << args << ": " << r.err;
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

TEST(PeCliTest, UsageErrorsExitTwoNamingTheOption) {
  const std::pair<const char*, const char*> cases[] = {
      {"pe --d-model 7 --length 2", "--d-model must be even and positive, got 7"},
      {"pe --d-model 8 --length 0", "--length must be positive, got 0"},
      {"pe --d-model 8 --length -3", "--length must be positive, got -3"},
      {"pe --d-model 8 --length abc", "--length: 'abc' is not a size"},
      {"pe --d-model 8 --length 2 --base 1", "--base must be"},
      {"pe --d-model 8 --length 2 --layout diagonal", "diagonal"},
      {"pe --d-model 2 --length 2 --denominator half_minus_one", "half_minus_one"},
      {"pe --d-model 8 --length 2 --mode sometimes", "sometimes"},
      {"pe --d-model 8 --length 2 --output x.txt", "--output must end in"},
      {"pe --d-model 65536 --length 100000000", "--length 100000000 x --d-model 65536"},
      {"pe --length 2", "--d-model is required"},
      {"pe --d-model 8 --length 2 --start -1", "--start must be >= 0, got -1"},
      {"frobnicate", "unknown command 'frobnicate'; the commands are pe, encode, tokenize, embed"},
      {"--max-memory 1G encdoe --tokens 1", "unknown command 'encdoe' (did you mean encode?)"}};
  for (const auto& [args, fragment] : cases) {
    const auto r = RunPhasor(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    testing::ExpectOneErrorLine(r);
    EXPECT_NE(r.err.find(fragment), std::string::npos) << args << ": " << r.err;
  }
}

// Counts of pixels of the heatmap's colours, read back from the PNG.
struct Colours {
  int64_t red = 0, blue = 0, white = 0, all = 0;
};

Colours CountColours(const std::string& path, int x0, int x1) {
  Colours c;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return c;
  gdImagePtr im = gdImageCreateFromPng(f);
  std::fclose(f);
  if (!im) return c;
  for (int y = 0; y < gdImageSY(im); ++y) {
    for (int x = std::max(x0, 0); x < std::min(x1, gdImageSX(im)); ++x) {
      const int p = gdImageGetTrueColorPixel(im, x, y);
      const int r = gdTrueColorGetRed(p), g = gdTrueColorGetGreen(p), b = gdTrueColorGetBlue(p);
      c.red += r > 150 && g < 90 && b < 90;
      c.blue += b > 140 && r < 90;
      c.white += r == 255 && g == 255 && b == 255;
      ++c.all;
    }
  }
  gdImageDestroy(im);
  return c;
}

// d_model 4096 has more columns than the picture has pixels. Kept apart, the
// cosines (about 1 at most dims for 64 positions) fill their panel with red;
// sampling every 4th column kept only sines, about 0 (white) there.
TEST(PeCliTest, WideInterleavedTableKeepsTheCosinesVisible) {
  const std::string path = ::testing::TempDir() + "pe_cli_wide.png";
  const auto r = RunPhasor("pe --d-model 4096 --length 64 --output " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("sin in even dims, cos in odd dims"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("reduced: each pixel is the mean of up to 4 dimensions of one panel"),
            std::string::npos)
      << r.err;
  // The heatmap's two panels: sin from x = 70, cos right of it (512 pixels each).
  const Colours sin_half = CountColours(path, 70, 70 + 512);
  const Colours cos_half = CountColours(path, 70 + 512 + 24, 70 + 1024 + 24);
  ASSERT_GT(cos_half.all, 0);
  // 64 rows x 8 pixels = 512 rows; the cosines of pairs past about 700 of 2048
  // stay above 0.75 for 64 positions: most of the panel is red.
  EXPECT_GT(cos_half.red, 512 * 512 / 2) << "red " << cos_half.red;
  // The sines of the same dims are near 0: little red, much white-ish.
  EXPECT_LT(sin_half.red, cos_half.red / 4) << "sin red " << sin_half.red;
}

// A long table: rows reduced by their mean, said in the title and on stderr.
TEST(PeCliTest, LongTableSaysHowItWasReduced) {
  const std::string path = ::testing::TempDir() + "pe_cli_long.png";
  const auto r = RunPhasor("pe --d-model 64 --length 100000 --output " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("reduced: each pixel is the mean of up to 98 positions\n"),
            std::string::npos)
      << r.err;
  const Colours all = CountColours(path, 0, 100000);
  EXPECT_GT(all.all, 0);
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

// `phasor bench-pe` run as a user runs it: every row of the table, the bounds,
// the skipped cached rows, the picture, and bad sizes.
#include <gd.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>

#include "tests/support/run.h"

namespace phasor {
namespace {

using testing::RunPhasor;

TEST(BenchPeCliTest, JsonHasEveryRowAndFractionsOfTheBound) {
  const auto r = RunPhasor("bench-pe --lengths 1K,2K --d-model 64 --min-seconds 0.01 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["d_model"], 64);
  std::set<std::string> seen;
  // The bound of each group and length: its row, present once, with a
  // positive finite throughput.
  std::map<std::string, double> bound_gb_per_s;
  for (const auto& row : j["rows"]) {
    const std::string mode = row["mode"];
    if (mode != "stream_write" && mode != "gather") continue;
    const std::string key = row["group"].get<std::string>() + " " + row["length"].dump();
    EXPECT_EQ(bound_gb_per_s.count(key), 0u) << key;
    const double gb = row["gb_per_s"];
    EXPECT_TRUE(std::isfinite(gb) && gb > 0) << row.dump();
    bound_gb_per_s[key] = gb;
  }
  EXPECT_EQ(bound_gb_per_s.size(), 4u);  // 2 groups x 2 lengths
  for (const auto& row : j["rows"]) {
    const std::string group = row["group"], mode = row["mode"];
    const int64_t length = row["length"];
    seen.insert(group + " " + mode + " " + std::to_string(length));
    ASSERT_TRUE(row.contains("seconds")) << row.dump();
    EXPECT_GT(row["seconds"].get<double>(), 0.0) << row.dump();
    // tokens/s and GB/s follow from the seconds: length / s, length·d·4 / s.
    const double s = row["seconds"];
    EXPECT_NEAR(row["tokens_per_s"].get<double>() * s, static_cast<double>(length), 1e-6 * length);
    EXPECT_NEAR(row["gb_per_s"].get<double>() * s * 1e9, static_cast<double>(length) * 64 * 4,
                1e-3 * length * 64 * 4);
    // The fraction is of the bound of the same group and length, recomputed
    // from the JSON's own throughputs.
    const std::string key = group + " " + std::to_string(length);
    ASSERT_EQ(bound_gb_per_s.count(key), 1u) << key;
    const double want = row["gb_per_s"].get<double>() / bound_gb_per_s[key];
    EXPECT_NEAR(row["fraction_of_bound"].get<double>(), want, 1e-9 * want) << row.dump();
  }
  for (const char* length : {"1024", "2048"}) {
    for (const char* row : {"pe stream_write", "pe cached", "pe on_the_fly", "pe direct",
                            "pe table_build", "embedding+pe gather", "embedding+pe cached",
                            "embedding+pe on_the_fly", "embedding+pe direct"}) {
      EXPECT_EQ(seen.count(std::string(row) + " " + length), 1u) << row << " " << length;
    }
  }
}

// --kind rope: q and k of every head turned from the cached table and on the
// fly, against one read and one write of q and k (4 passes of length·d floats).
TEST(BenchPeCliTest, RopeKindHasItsRowsAndBound) {
  const auto r = RunPhasor(
      "bench-pe --kind rope --heads 4 --lengths 1K,3000 --d-model 64 --min-seconds 0.01 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kind"], "rope");
  EXPECT_EQ(j["heads"], 4);
  std::multiset<std::string> seen;
  for (const auto& row : j["rows"]) {
    const int64_t length = row["length"];
    seen.insert(row["group"].get<std::string>() + " " + row["mode"].get<std::string>() + " " +
                std::to_string(length));
    const double s = row["seconds"];
    EXPECT_GT(s, 0.0) << row.dump();
    EXPECT_NEAR(row["gb_per_s"].get<double>() * s * 1e9, static_cast<double>(length) * 64 * 16,
                1e-3 * length * 64 * 16)
        << row.dump();
    const double f = row["fraction_of_bound"];
    EXPECT_TRUE(std::isfinite(f) && f > 0) << row.dump();
    if (row["mode"] == "read_write") {
      EXPECT_EQ(f, 1.0);
    }
  }
  const std::multiset<std::string> want = {"rope read_write 1024", "rope cached 1024",
                                           "rope on_the_fly 1024", "rope read_write 3000",
                                           "rope cached 3000",     "rope on_the_fly 3000"};
  EXPECT_EQ(seen, want);
}

TEST(BenchPeCliTest, TableRowsAndSkippedCachedMode) {
  const auto r =
      RunPhasor("bench-pe --lengths 1K --d-model 64 --min-seconds 0.01 --max-table-gib 0.0001");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The sizes in three significant digits: a small table is not "0.0 GiB".
  for (const char* word : {"of bound", "stream_write", "gather", "on_the_fly", "direct",
                           "skipped: table 0.000244 GiB > --max-table-gib 0.0001"}) {
    EXPECT_NE(r.out.find(word), std::string::npos) << word << " in " << r.out;
  }
}

// The pixels of each mode's colour in each panel of a bench-pe chart: x in
// [80, 480] and [550, 950] (tools/line_plot.cc), the legend beyond.
struct ModePixels {
  int cached[2] = {0, 0};      // 0x2166ac, blue
  int on_the_fly[2] = {0, 0};  // 0xd95f02, orange
  int direct[2] = {0, 0};      // 0x1b9e77, green
  int table[2] = {0, 0};       // 0x7570b3, purple
};

ModePixels CountModePixels(const std::string& png) {
  ModePixels n;
  FILE* f = std::fopen(png.c_str(), "rb");
  if (f == nullptr) return n;
  gdImagePtr im = gdImageCreateFromPng(f);
  std::fclose(f);
  if (im == nullptr) return n;
  const auto near = [](int c, int rgb) {
    return std::abs(gdTrueColorGetRed(c) - (rgb >> 16)) < 24 &&
           std::abs(gdTrueColorGetGreen(c) - ((rgb >> 8) & 0xff)) < 24 &&
           std::abs(gdTrueColorGetBlue(c) - (rgb & 0xff)) < 24;
  };
  for (int y = 0; y < gdImageSY(im); ++y) {
    for (int x = 80; x < 950; ++x) {
      const int c = gdImageGetTrueColorPixel(im, x, y);
      const int panel = x < 515 ? 0 : 1;
      n.cached[panel] += near(c, 0x2166ac);
      n.on_the_fly[panel] += near(c, 0xd95f02);
      n.direct[panel] += near(c, 0x1b9e77);
      n.table[panel] += near(c, 0x7570b3);
    }
  }
  gdImageDestroy(im);
  return n;
}

// The chart: pe on the left, embedding+pe on the right, each mode in a colour
// of its own, the same in both panels, so that modes at the same rate stay
// apart; one "wrote" line; the table's rates with K and M = 1024.
TEST(BenchPeCliTest, ChartGivesEveryModeItsOwnColourInBothPanels) {
  const std::string png = ::testing::TempDir() + "bench_pe_" + std::to_string(::getpid()) + ".png";
  std::remove(png.c_str());
  const auto r = RunPhasor("bench-pe --lengths 1K,4K --d-model 64 --min-seconds 0.01 --png " + png);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("phasor: wrote " + png + ": GB/s written against sequence length", 0), 0u)
      << r.err;
  EXPECT_EQ(r.out.find("e+"), std::string::npos) << r.out;
  const ModePixels n = CountModePixels(png);
  for (int panel : {0, 1}) {
    EXPECT_GT(n.cached[panel], 50) << "panel " << panel;
    EXPECT_GT(n.on_the_fly[panel], 50) << "panel " << panel;
    EXPECT_GT(n.direct[panel], 50) << "panel " << panel;
  }
  EXPECT_GT(n.table[0], 50) << "pe table_build, in the pe panel";
  EXPECT_EQ(n.table[1], 0);
  std::remove(png.c_str());
}

// RoPE's two modes run at nearly one rate: in two colours, both are seen.
TEST(BenchPeCliTest, RopeChartShowsCachedAndOnTheFlyApart) {
  const std::string png =
      ::testing::TempDir() + "bench_rope_" + std::to_string(::getpid()) + ".png";
  const auto r = RunPhasor(
      "bench-pe --kind rope --heads 4 --lengths 1K,4K --d-model 64 --min-seconds 0.01 --png " +
      png);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const ModePixels n = CountModePixels(png);
  EXPECT_GT(n.cached[0], 50);
  EXPECT_GT(n.on_the_fly[0], 50);
  std::remove(png.c_str());
}

TEST(BenchPeCliTest, BadSizesAreUsageErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"bench-pe --lengths 0", "--lengths must be in"},
      {"bench-pe --lengths abc", "--lengths: 'abc' is not a size"},
      {"bench-pe --lengths 1K,,2K", "--lengths: '1K,,2K' has an empty entry"},
      {"bench-pe --lengths -5", "--lengths must be in [1, 17179869184], got -5"},
      {"bench-pe --lengths 99999999999999", "--lengths must be in"},
      {"bench-pe --d-model 7", "--d-model must be even, got 7"},
      {"bench-pe --d-model 0", "--d-model must be in [2, 65536], got 0"},
      {"bench-pe --threads -1", "--threads must be in [0, 1024], got -1"},
      {"bench-pe --lengths 1K --bogus", "unknown option --bogus"},
      {"bench-pe --kind cosine", "--kind must be sinusoidal or rope, got 'cosine'"},
      {"bench-pe --kind rope --d-model 64 --heads 3",
       "--kind rope: --d-model 64 / --heads 3 must be an even head dim"},
      {"bench-pe --kind rope --d-model 64 --heads 0", "--heads must be in [1, 64], got 0"}};
  for (const auto& [args, fragment] : cases) {
    const auto r = RunPhasor(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    testing::ExpectOneErrorLine(r);
    EXPECT_NE(r.err.find(fragment), std::string::npos) << args << ": " << r.err;
  }
}

}  // namespace
}  // namespace phasor

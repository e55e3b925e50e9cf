// `phasor bench-pe` run as a user runs it: every row of the table, the bounds,
// the skipped cached rows, the picture, and bad sizes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tests/support/run.h"

namespace phasor {
namespace {

using testing::RunPhasor;

TEST(BenchPeCliTest, JsonHasEveryRowAndTheBoundsAreOne) {
  const auto r = RunPhasor("bench-pe --lengths 1K,2K --d-model 64 --min-seconds 0.01 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["d_model"], 64);
  std::set<std::string> seen;
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
    if (mode == "stream_write" || mode == "gather") {
      EXPECT_DOUBLE_EQ(row["fraction_of_bound"].get<double>(), 1.0) << row.dump();
    } else {
      EXPECT_GT(row["fraction_of_bound"].get<double>(), 0.0) << row.dump();
    }
  }
  for (const char* length : {"1024", "2048"}) {
    for (const char* row :
         {"pe stream_write", "pe cached", "pe on_the_fly", "pe direct", "embedding+pe gather",
          "embedding+pe cached", "embedding+pe on_the_fly", "embedding+pe direct"}) {
      EXPECT_EQ(seen.count(std::string(row) + " " + length), 1u) << row << " " << length;
    }
  }
}

TEST(BenchPeCliTest, TableRowsAndSkippedCachedMode) {
  const auto r =
      RunPhasor("bench-pe --lengths 1K --d-model 64 --min-seconds 0.01 --max-table-gib 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* word : {"of bound", "stream_write", "gather", "on_the_fly", "direct",
                           "skipped: table 0.0 GiB > --max-table-gib 0.0"}) {
    EXPECT_NE(r.out.find(word), std::string::npos) << word << " in " << r.out;
  }
}

TEST(BenchPeCliTest, PngIsWritten) {
  const std::string png = ::testing::TempDir() + "bench_pe_" + std::to_string(::getpid()) + ".png";
  std::remove(png.c_str());
  const auto r = RunPhasor("bench-pe --lengths 1K,4K --d-model 64 --min-seconds 0.01 --png " + png);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string bytes = testing::ReadFile(png);
  ASSERT_GT(bytes.size(), 8u);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  std::remove(png.c_str());
}

TEST(BenchPeCliTest, BadSizesAreUsageErrors) {
  for (const char* args :
       {"bench-pe --lengths 0", "bench-pe --lengths abc", "bench-pe --lengths 1K,,2K",
        "bench-pe --lengths -5", "bench-pe --lengths 99999999999999", "bench-pe --d-model 7",
        "bench-pe --d-model 0", "bench-pe --threads -1", "bench-pe --lengths 1K --bogus"}) {
    const auto r = RunPhasor(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    testing::ExpectOneErrorLine(r);
  }
}

}  // namespace
}  // namespace phasor

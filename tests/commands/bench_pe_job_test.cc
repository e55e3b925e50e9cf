// The library call behind `phasor bench-pe`: its checks, and the rows it
// measures (which cases, in which order, each against its own bound).
#include "commands/bench_pe_job.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/error.h"

namespace {

using phasor::BenchPeRequest;
using phasor::BenchPeRow;

std::string UsageMessage(const BenchPeRequest& r) {
  try {
    phasor::CheckBenchPeRequest(r);
  } catch (const phasor::UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(CheckBenchPeRequest, ParsesLengthsAndRefusesRepeats) {
  BenchPeRequest r;
  r.lengths = "1K, 4";
  EXPECT_EQ(phasor::CheckBenchPeRequest(r), (std::vector<int64_t>{1024, 4}));
  r.lengths = "1K,1024";
  EXPECT_EQ(UsageMessage(r), "--lengths: 1024 is given twice in '1K,1024'");
  r.lengths = "1K";
  r.kind = "rope";
  r.d_model = 12;
  r.heads = 12;
  EXPECT_EQ(UsageMessage(r), "--kind rope: --d-model 12 / --heads 12 must be an even head dim");
  r.heads = 3;
  EXPECT_EQ(UsageMessage(r), "");
  r.min_seconds = 0;
  EXPECT_EQ(UsageMessage(r), "--min-seconds must be greater than 0 and at most 3600, got 0");
}

std::vector<std::string> Modes(const std::vector<BenchPeRow>& rows) {
  std::vector<std::string> modes;
  for (const BenchPeRow& r : rows) modes.push_back(r.group + " " + r.mode);
  return modes;
}

TEST(RunBenchPeJob, SinusoidalRowsAgainstTheirBounds) {
  BenchPeRequest r;
  r.d_model = 32;
  r.vocab = 100;
  r.lengths = "64";
  r.min_seconds = 1e-4;
  const std::vector<BenchPeRow> rows = phasor::RunBenchPeJob(r);
  EXPECT_EQ(Modes(rows), (std::vector<std::string>{
                             "pe stream_write", "embedding+pe gather", "pe cached",
                             "embedding+pe cached", "pe table_build", "pe on_the_fly",
                             "embedding+pe on_the_fly", "pe direct", "embedding+pe direct"}));
  for (const BenchPeRow& row : rows) {
    EXPECT_EQ(row.length, 64);
    EXPECT_TRUE(row.note.empty());
    EXPECT_GT(row.seconds, 0.0) << row.mode;
    EXPECT_DOUBLE_EQ(row.tokens_per_s, 64 / row.seconds);
  }
  EXPECT_DOUBLE_EQ(rows[0].of_bound, 1.0);  // the bound against itself
  EXPECT_DOUBLE_EQ(rows[1].of_bound, 1.0);
}

TEST(RunBenchPeJob, RopeSkipsATableOverTheLimit) {
  BenchPeRequest r;
  r.kind = "rope";
  r.d_model = 32;
  r.heads = 4;
  r.lengths = "16,32";
  r.min_seconds = 1e-4;
  r.max_table_gib = 1e-9;
  const std::vector<BenchPeRow> rows = phasor::RunBenchPeJob(r);
  EXPECT_EQ(Modes(rows),
            (std::vector<std::string>{"rope read_write", "rope cached", "rope on_the_fly",
                                      "rope read_write", "rope cached", "rope on_the_fly"}));
  EXPECT_EQ(rows[1].note.rfind("skipped: table ", 0), 0u) << rows[1].note;
  EXPECT_EQ(rows[1].seconds, 0.0);
  EXPECT_EQ(rows[4].length, 32);
}

}  // namespace

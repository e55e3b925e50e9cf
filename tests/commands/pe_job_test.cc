// The library call behind `phasor pe`: the checks shared with the Python
// module, the table, its CSV and the similarity curves.
#include "commands/pe_job.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "engine/error.h"
#include "layers/sinusoidal.h"
#include "tests/support/limits.h"

namespace {

using phasor::PeJob;
using phasor::PeRequest;
using phasor::TableArgNames;
using phasor::testing::UsageErrorOf;

TEST(TableChecks, NameTheArgumentsAsTheCallerSpellsThem) {
  const TableArgNames cli;
  const TableArgNames python{"start", "length", "rotary_dim"};
  EXPECT_EQ(UsageErrorOf([&] { phasor::CheckTableStart(-1, cli); }),
            "--start must be >= 0, got -1");
  EXPECT_EQ(UsageErrorOf([&] { phasor::CheckTableStart(-1, python); }),
            "start must be >= 0, got -1");
  EXPECT_EQ(UsageErrorOf([&] { phasor::CheckTableStart(0, python); }), "");
  const int64_t last = int64_t{1} << 40;
  EXPECT_EQ(UsageErrorOf([&] { phasor::CheckTablePositions(last - 4, 4, python); }), "");
  EXPECT_EQ(
      UsageErrorOf([&] { phasor::CheckTablePositions(last - 3, 4, cli); }),
      "--start " + std::to_string(last - 3) + " + --length 4 is past the largest position (2^40)");
  EXPECT_EQ(UsageErrorOf([&] { phasor::CheckTableValues(int64_t{1} << 20, 1024, python); }), "");
  EXPECT_EQ(UsageErrorOf([&] { phasor::CheckTableValues((int64_t{1} << 20) + 1, 1024, python); }),
            "length 1048577 x rotary_dim 1024 is too large for one table (limit 2^30 values)");
}

PeRequest Request(int64_t d_model, int64_t length, int64_t start = 0) {
  PeRequest r;
  r.d_model = d_model;
  r.length = length;
  r.start = start;
  return r;
}

TEST(PeJob, TableIsTheEncodingsRows) {
  PeRequest r = Request(16, 10, 5);
  r.layout = "split";
  r.mode = "cached";
  r.max_len = 20;
  const PeJob job(r);
  EXPECT_FALSE(job.rope());
  EXPECT_EQ(job.width(), 16);
  EXPECT_EQ(job.Range(), "5..14");
  EXPECT_FALSE(job.paired());
  EXPECT_EQ(job.title(), "Sinusoidal PE, d_model 16, base 10000, split, d_model");
  phasor::SinusoidalOptions o;
  o.d_model = 16;
  o.layout = phasor::PeLayout::kSplit;
  std::vector<float> want(10 * 16);
  phasor::SinusoidalEncoding(o).Fill(5, 10, want.data());
  EXPECT_EQ(job.Table(), want);
  std::ostringstream csv;
  const std::vector<float> t = job.Table();
  job.WriteCsv([&](const std::string& line) { csv << line; }, t.data());
  EXPECT_EQ(csv.str().rfind("position,0,1,2,", 0), 0u);
  EXPECT_NE(csv.str().find("\n5,"), std::string::npos);
  EXPECT_NE(csv.str().find("\n14,"), std::string::npos);
}

TEST(PeJob, RopeTableHasRotaryDimColumns) {
  PeRequest r = Request(16, 4);
  r.kind = "rope";
  r.rotary_dim = 8;
  const PeJob job(r);
  EXPECT_TRUE(job.rope());
  EXPECT_EQ(job.width(), 8);
  EXPECT_EQ(job.first_of_pair(), "cos");
  const std::vector<float> t = job.Table();
  ASSERT_EQ(t.size(), 4u * 8u);
  EXPECT_EQ(t[0], 1.0f);  // position 0: cos 0 in the half layout's first column
}

TEST(PeJob, OptionsOfTheOtherKindAreNamed) {
  PeRequest r = Request(16, 4);
  r.given = {"--beta-fast"};
  EXPECT_EQ(UsageErrorOf([&] { PeJob job(r); }), "--beta-fast applies to --kind rope only");
  r.kind = "rope";
  r.given = {"--denominator"};
  EXPECT_EQ(UsageErrorOf([&] { PeJob job(r); }), "--denominator does not apply to --kind rope");
  r.given = {"--factor", "--beta-fast"};
  r.scaling = "linear";
  EXPECT_EQ(UsageErrorOf([&] { PeJob job(r); }), "--beta-fast is not used by --scaling linear");
  r.given = {};
  EXPECT_EQ(UsageErrorOf([&] { PeJob job(r); }), "--scaling linear needs --factor");
}

// PE(p)·PE(p+k) = sum over pairs of cos(k freq_i): d_model / 2 at k = 0, the
// same for every first position p.
TEST(PeJob, SimilarityDependsOnTheDistanceAlone) {
  PeRequest r = Request(32, 40, 3);
  r.similarity = ::testing::TempDir() + "pe_job_similarity.png";
  const phasor::SimilarityCurves c = PeJob(r).Similarity();
  ASSERT_EQ(c.starts.size(), 4u);
  EXPECT_EQ(c.starts[0], 3);
  EXPECT_EQ(c.starts.back(), (int64_t{1} << 24) - 40);
  ASSERT_EQ(c.y.size(), 4u);
  EXPECT_NEAR(c.y[0][0], 16.0, 1e-5);
  for (const std::vector<double>& y : c.y) {
    ASSERT_EQ(y.size(), 40u);
    for (size_t k = 0; k < y.size(); ++k) EXPECT_NEAR(y[k], c.y[0][k], 1e-3) << k;
  }
  r.kind = "rope";
  const phasor::SimilarityCurves rc = PeJob(r).Similarity();
  EXPECT_NEAR(rc.y[0][0], 32.0, 1e-4);  // q = k = ones: |q|^2 at k = 0
}

}  // namespace

// The library call behind `phasor encode`: its checks, the events it reports
// and the result and files it produces.
#include "commands/encode_job.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "engine/error.h"
#include "engine/npy.h"
#include "tests/support/limits.h"

namespace {

using phasor::EncodeChoices;
using phasor::EncodeJob;
using phasor::EncodeRequest;
using phasor::EncodeResult;
using phasor::JobEvents;

using phasor::testing::UsageErrorOf;

EncodeRequest Tokens(const std::string& ids) {
  EncodeRequest r;
  r.tokens = ids;
  return r;
}

TEST(CheckEncodeRequest, NamesTheOptionAtFault) {
  EncodeRequest none;
  EXPECT_EQ(UsageErrorOf([&] { phasor::CheckEncodeRequest(none); }),
            "give exactly one of --tokens, --tokens-file and --text-file");
  EncodeRequest both = Tokens("1 2");
  both.tokens_file = "t.txt";
  EXPECT_EQ(UsageErrorOf([&] { phasor::CheckEncodeRequest(both); }),
            "give exactly one of --tokens, --tokens-file and --text-file");
  EncodeRequest r = Tokens("1 2");
  r.normalize = true;
  EXPECT_EQ(UsageErrorOf([&] { phasor::CheckEncodeRequest(r); }),
            "--normalize needs a pool (--pool mean, cls, max, last, mean_sqrt_len or model): "
            "without one every token's row is returned");
  r = Tokens("1 2");
  r.pe_mode = "sometimes";
  EXPECT_EQ(UsageErrorOf([&] { phasor::CheckEncodeRequest(r); }).rfind("--pe-mode: ", 0), 0u);
  r = Tokens("1 2");
  r.layout = "packed";
  r.pool = "mean";
  EXPECT_NE(UsageErrorOf([&] { phasor::CheckEncodeRequest(r); }).find("do not go together"),
            std::string::npos);
  r = Tokens("1 2");
  r.offsets = "o.npy";
  EXPECT_EQ(UsageErrorOf([&] { phasor::CheckEncodeRequest(r); }),
            "--offsets needs --layout packed");
  r.layout = "packed";
  EXPECT_EQ(UsageErrorOf([&] { phasor::CheckEncodeRequest(r); }), "--offsets needs --output");
}

TEST(CheckEncodeRequest, PackedOffsetsGoBesideTheOutput) {
  EncodeRequest r = Tokens("1 2");
  r.layout = "packed";
  r.output = ::testing::TempDir() + "encode_job_packed.npy";
  const EncodeChoices c = phasor::CheckEncodeRequest(r);
  EXPECT_TRUE(c.packed);
  EXPECT_EQ(c.offsets_path, ::testing::TempDir() + "encode_job_packed.offsets.npy");
  r.offsets = ::testing::TempDir() + "elsewhere.npy";
  EXPECT_EQ(phasor::CheckEncodeRequest(r).offsets_path, r.offsets);
  r.layout = "padded";
  r.offsets.clear();
  EXPECT_EQ(phasor::CheckEncodeRequest(r).offsets_path, "");
}

// Runs a job, recording its events.
struct Recorded {
  std::vector<std::string> warnings;
  std::vector<std::pair<std::string, std::string>> wrote;
  std::vector<int64_t> progress;
  EncodeResult result;
};

Recorded RunJob(const EncodeRequest& r) {
  Recorded rec;
  JobEvents events;
  events.warning = [&](const std::string& w) { rec.warnings.push_back(w); };
  events.wrote = [&](const std::string& p, const std::string& w) { rec.wrote.emplace_back(p, w); };
  events.progress = [&](int64_t done, const std::string&) { rec.progress.push_back(done); };
  EncodeJob job(r, events);
  rec.result = job.Run();
  EXPECT_FALSE(rec.progress.empty());
  if (!rec.progress.empty()) {
    EXPECT_EQ(rec.progress.back(), job.total_work());
  }
  return rec;
}

TEST(EncodeJob, WritesWhatItReturns) {
  EncodeRequest r = Tokens("3 14 15");
  r.output = ::testing::TempDir() + "encode_job_out.npy";
  r.repeat = 2;
  const Recorded rec = RunJob(r);
  const EncodeResult& res = rec.result;
  const int64_t d = res.config.d_model;
  EXPECT_EQ(res.model_name, "built-in toy");
  EXPECT_EQ(res.shape, (std::vector<int64_t>{1, 3, d}));
  EXPECT_EQ(res.real_tokens, 3);
  EXPECT_EQ(res.first_length, 3);
  EXPECT_EQ(res.layout, "padded");
  EXPECT_GT(res.seconds, 0.0);
  ASSERT_EQ(rec.wrote.size(), 1u);
  EXPECT_EQ(rec.wrote[0].first, r.output);
  EXPECT_EQ(rec.wrote[0].second, "float32 [1, 3, " + std::to_string(d) + "], final hidden states");
  const phasor::NpyArray a = phasor::ReadNpy(r.output);
  ASSERT_EQ(a.shape, res.shape);
  for (int64_t k = 0; k < d; ++k) {
    EXPECT_EQ(res.first_rows[k], a.data[k]);              // token 0
    EXPECT_EQ(res.first_rows[d + k], a.data[2 * d + k]);  // token 2, the last
  }
  EXPECT_TRUE(rec.warnings.empty());
}

TEST(EncodeJob, PackedOutputHasItsOffsetsAndWarnsOfTrailingPads) {
  EncodeRequest r = Tokens("3 14 0");  // the toy model's pad id is 0
  r.layout = "packed";
  r.output = ::testing::TempDir() + "encode_job_packed.npy";
  const Recorded rec = RunJob(r);
  ASSERT_EQ(rec.warnings.size(), 1u);
  EXPECT_EQ(rec.result.real_tokens, 2);
  EXPECT_EQ(rec.result.layout, "packed");
  ASSERT_EQ(rec.wrote.size(), 2u);
  EXPECT_EQ(rec.wrote[1].first, ::testing::TempDir() + "encode_job_packed.offsets.npy");
  EXPECT_EQ(phasor::ReadNpy(r.output).shape, (std::vector<int64_t>{2, rec.result.config.d_model}));
}

TEST(EncodeJob, PooledRowIsKeptOnce) {
  EncodeRequest r = Tokens("3 14 15 92");
  r.pool = "mean";
  r.normalize = true;
  const Recorded rec = RunJob(r);
  const EncodeResult& res = rec.result;
  const int64_t d = res.config.d_model;
  EXPECT_EQ(res.layout, "pooled");
  EXPECT_EQ(res.shape, (std::vector<int64_t>{1, d}));
  double norm = 0;
  for (int64_t k = 0; k < d; ++k) {
    EXPECT_EQ(res.first_rows[k], res.first_rows[d + k]);
    norm += static_cast<double>(res.first_rows[k]) * res.first_rows[k];
  }
  EXPECT_NEAR(norm, 1.0, 1e-5);
  EXPECT_TRUE(rec.wrote.empty());
}

}  // namespace

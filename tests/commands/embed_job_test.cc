// The library call behind `phasor embed`: what it settles from a request, and
// rows that do not depend on how the sequence is cut into chunks.
#include "commands/embed_job.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/error.h"
#include "engine/npy.h"

namespace {

using phasor::EmbedPlan;
using phasor::EmbedRequest;
using phasor::EmbedResult;
using phasor::PeMode;

TEST(CheckEmbedRequest, SettlesChunkAndTable) {
  EmbedRequest r;
  r.seq_len = 1000;
  EmbedPlan p = phasor::CheckEmbedRequest(r);
  EXPECT_EQ(p.chunk, (int64_t{8} << 20) / (4 * 512));  // 8 MiB of output
  EXPECT_EQ(p.mode, PeMode::kOnTheFly);
  EXPECT_EQ(p.table_rows, 0);
  r.d_model = 65536;
  r.vocab = 100;
  EXPECT_EQ(phasor::CheckEmbedRequest(r).chunk, 32);
  r.d_model = 64;
  r.pe_mode = "cached";
  EXPECT_EQ(phasor::CheckEmbedRequest(r).table_rows, 1000);
  r.pe_mode = "auto";
  r.max_len = 300;
  r.chunk = 77;
  p = phasor::CheckEmbedRequest(r);
  EXPECT_EQ(p.table_rows, 300);
  EXPECT_EQ(p.chunk, 77);
}

TEST(CheckEmbedRequest, RefusesBadOptions) {
  EmbedRequest r;
  r.seq_len = 10;
  r.d_model = 3;
  EXPECT_THROW(phasor::CheckEmbedRequest(r), phasor::UsageError);
  r.d_model = 8;
  r.pe_mode = "sometimes";
  try {
    phasor::CheckEmbedRequest(r);
    ADD_FAILURE() << "no error";
  } catch (const phasor::UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--pe-mode: ", 0), 0u) << e.what();
  }
  r.pe_mode = "on_the_fly";
  r.output = "rows.csv";
  EXPECT_THROW(phasor::CheckEmbedRequest(r), phasor::UsageError);
}

EmbedResult Embed(const std::string& path, int64_t chunk, const std::string& mode) {
  EmbedRequest r;
  r.seq_len = 500;
  r.d_model = 32;
  r.vocab = 50;
  r.pe_mode = mode;
  r.max_len = 100;
  r.chunk = chunk;
  r.output = path;
  int64_t last = 0;
  std::string wrote;
  phasor::JobEvents events;
  events.progress = [&](int64_t done, const std::string&) { last = done; };
  events.wrote = [&](const std::string& p, const std::string&) { wrote = p; };
  const EmbedResult res = phasor::RunEmbedJob(r, events);
  EXPECT_EQ(last, r.seq_len);
  EXPECT_EQ(wrote, path);
  return res;
}

TEST(RunEmbedJob, RowsDoNotDependOnChunksOrMode) {
  const std::string a = ::testing::TempDir() + "embed_job_a.npy";
  const std::string b = ::testing::TempDir() + "embed_job_b.npy";
  const EmbedResult ra = Embed(a, 7, "on_the_fly");
  const EmbedResult rb = Embed(b, 64, "auto");  // positions past 100 on the fly
  const phasor::NpyArray xa = phasor::ReadNpy(a), xb = phasor::ReadNpy(b);
  ASSERT_EQ(xa.shape, (std::vector<int64_t>{500, 32}));
  ASSERT_EQ(xa.shape, xb.shape);
  double last_row = 0;
  for (size_t k = 0; k < xa.data.size(); ++k) {
    ASSERT_NEAR(xa.data[k], xb.data[k], 2e-6) << "value " << k;
  }
  for (int64_t k = 0; k < 32; ++k) last_row += xa.data[499 * 32 + k];
  EXPECT_EQ(ra.last_row_sum, last_row);
  EXPECT_GT(ra.tokens_per_s, 0.0);
  EXPECT_EQ(rb.plan.table_rows, 100);
}

}  // namespace

// `phasor encode --stage pooler|logits` through the command line: one row a
// line from the checkpoint's head, against the float64 reference of
// tests/data/make_hf_golden.py; the options it refuses, named.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "engine/npy.h"
#include "tests/support/paths.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

using testing::RunPhasor;

constexpr double kOutputTol = 1e-4;  // the contract's parity bound

std::string HfDir(const std::string& name) {
  return std::string(phasor::testing::kTestDataDir) + "/hf/" + name;
}

struct StageCase {
  const char* model;
  const char* stage;
  const char* expected;
};
void PrintTo(const StageCase& c, std::ostream* os) { *os << c.model << " --stage " << c.stage; }

class EncodeHeadsCliTest : public ::testing::TestWithParam<StageCase> {};

TEST_P(EncodeHeadsCliTest, WritesOneRowALineAsTheReference) {
  const StageCase& c = GetParam();
  const std::string dir = HfDir(c.model);
  const std::string out = ::testing::TempDir() + "head.npy";
  const auto r = RunPhasor("encode --model " + dir + " --tokens-file " + dir +
                           "/tokens.txt --stage " + c.stage + " --output " + out + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const NpyArray got = ReadNpy(out);
  const NpyArray want = ReadNpy(dir + "/" + c.expected);
  ASSERT_EQ(got.shape, want.shape);
  EXPECT_EQ(got.shape[0], 5);
  double worst = 0;
  for (size_t i = 0; i < want.data.size(); ++i) {
    ASSERT_TRUE(std::isfinite(got.data[i])) << i;
    worst = std::fmax(worst, std::fabs(got.data[i] - want.data[i]));
  }
  EXPECT_LE(worst, kOutputTol) << c.model << " " << c.stage;
  EXPECT_NE(r.out.find("\"stage\":\"" + std::string(c.stage) + "\""), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    EveryHead, EncodeHeadsCliTest,
    ::testing::Values(StageCase{"bert_seqcls", "logits", "expected_logits.npy"},
                      StageCase{"bert_seqcls", "pooler", "expected_pooler.npy"},
                      StageCase{"roberta_seqcls", "logits", "expected_logits.npy"},
                      StageCase{"distilbert_seqcls", "logits", "expected_logits.npy"}),
    [](const ::testing::TestParamInfo<StageCase>& info) {
      return std::string(info.param.model) + "_" + info.param.stage;
    });

TEST(EncodeHeadsCliTest, WhatIsRefusedIsNamed) {
  const std::string seqcls = HfDir("bert_seqcls");
  // A stage without its tensors: exit 1, the stage and the tensor named.
  auto r = RunPhasor("encode --model " + HfDir("bert") + " --tokens \"3 4 5\" --stage logits");
  EXPECT_EQ(r.exit_code, 1);
  testing::ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("stage 'logits' needs a classification head, and the model has none (no "
                       "tensor 'classifier.weight'"),
            std::string::npos)
      << r.err;
  r = RunPhasor("encode --model " + HfDir("distilbert_seqcls") +
                " --tokens \"3 4 5\" --stage pooler");
  EXPECT_EQ(r.exit_code, 1);
  testing::ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("no tensor 'pooler.dense.weight'"), std::string::npos) << r.err;
  // Pooling or the packed layout with a head: usage errors naming both options.
  r = RunPhasor("encode --model " + seqcls + " --tokens \"3 4 5\" --stage logits --pool mean");
  EXPECT_EQ(r.exit_code, 2);
  testing::ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("--stage logits and --pool mean do not go together"), std::string::npos)
      << r.err;
  r = RunPhasor("encode --model " + seqcls + " --tokens \"3 4 5\" --stage pooler --layout packed");
  EXPECT_EQ(r.exit_code, 2);
  testing::ExpectOneErrorLine(r);
  r = RunPhasor("encode --model " + seqcls + " --tokens \"3 4 5\" --stage scores");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--stage must be 'embeddings', 'final', 'pooler' or 'logits', got 'scores'"),
            std::string::npos)
      << r.err;
  // The text report shows the logits.
  r = RunPhasor("encode --model " + seqcls + " --tokens \"3 4 5\" --stage logits");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("seq 0, logits:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[1, 3]"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace phasor

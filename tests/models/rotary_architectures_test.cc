// The rotary checkpoints (models/architectures/nomic_bert.cc, ...): their
// golden cases run in architectures_test.cc's HfGoldenTest; here what they
// refuse by name, and ragged lines encoded without a pad id.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/npy.h"
#include "models/phasor.h"
#include "tests/support/hf_copy.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

namespace fs = std::filesystem;

using testing::HfDir;

// A copy of the nomic_bert case with config.json edited.
class NomicHostileTest : public testing::HfCopyTest {
 protected:
  void SetUp() override { CopyCase("nomic_bert"); }
  void ExpectRefused(const std::string& from, const std::string& to, const std::string& fragment) {
    WriteConfig(from, to);
    ExpectLoadError(fragment);
  }
};

TEST_F(NomicHostileTest, WhatItDoesNotRunIsNamed) {
  ExpectRefused("\"prenorm\": false", "\"prenorm\": true",
                "config.json: key 'prenorm': true is not supported");
  ExpectRefused("\"causal\": false", "\"causal\": true", "key 'causal': true is not supported");
  ExpectRefused("\"rotary_emb_scale_base\": null", "\"rotary_emb_scale_base\": 512",
                "key 'rotary_emb_scale_base': xPos scaling is not supported");
  ExpectRefused("\"rotary_scaling_factor\": null", "\"rotary_scaling_factor\": 2.0",
                "key 'rotary_scaling_factor': dynamic NTK scaling is not supported yet");
  ExpectRefused("\"activation_function\": \"swiglu\"", "\"activation_function\": \"glu\"",
                "key 'activation_function': 'glu' is not supported");
  ExpectRefused("\"rotary_emb_fraction\": 1.0", "\"rotary_emb_fraction\": 0.0",
                "key 'rotary_emb_fraction': expected a fraction in (0, 1] of the head (8)");
  ExpectRefused("\"rotary_emb_fraction\": 1.0", "\"rotary_emb_fraction\": 0.3",
                "giving an even number of dimensions");
}

TEST_F(NomicHostileTest, AMissingBiasTheConfigAsksForIsNamed) {
  ExpectRefused("\"mlp_fc2_bias\": false", "\"mlp_fc2_bias\": true",
                "missing tensor 'encoder.layers.0.mlp.fc2.bias'");
}

// nomic-embed's config has no pad_token_id: ragged lines are each encoded by
// their own length, the same rows as each line alone.
TEST(NomicCliTest, RaggedLinesNeedNoPadId) {
  const std::string dir = HfDir("nomic_bert");
  ASSERT_FALSE(Model::Load(dir).pad_token_id().has_value());
  const std::string out = ::testing::TempDir() + "nomic_ragged.npy";
  const testing::RunResult r = testing::RunPhasor("encode --model " + dir + " --tokens-file " +
                                                  dir + "/tokens.txt --output " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const NpyArray want = ReadNpy(dir + "/expected.npy");
  const NpyArray got = ReadNpy(out);
  ASSERT_EQ(got.shape, want.shape);
  double worst = 0;
  for (size_t i = 0; i < got.data.size(); ++i) {
    worst = std::max(worst, static_cast<double>(std::abs(got.data[i] - want.data[i])));
  }
  EXPECT_LE(worst, 1e-4);
}

}  // namespace
}  // namespace phasor

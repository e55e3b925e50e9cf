// RoPE encoders against the PyTorch reference forward pass of
// tests/data/make_golden.py (q and k rotated after the in-projection), on the
// golden cases tests/data/golden/rope_* (see tests/support/golden.h); and the
// Rope layer alone on PyTorch's layer-0 in-projection.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "engine/npy.h"
#include "layers/rope.h"
#include "models/config.h"
#include "models/encoder.h"
#include "models/tokens.h"
#include "tests/support/golden.h"

namespace phasor {
namespace {

constexpr double kRotationTol = 2e-5;  // one rotation of values up to ~5 in float

const char* const kCases[] = {"rope_half",   "rope_offset_2p24", "rope_interleaved_partial",
                              "rope_linear", "rope_ntk",         "rope_dynamic_ragged",
                              "rope_yarn",   "rope_llama3"};

class RopeParityTest : public ::testing::TestWithParam<const char*> {};

TEST_P(RopeParityTest, MatchesPyTorch) { testing::ExpectMatchesGolden(GetParam()); }

// The rotation alone: layer 0's in-projection as PyTorch computed it, rotated
// by phasor's Rope, against PyTorch's rotation (HF rotate_half for layout half,
// Meta's complex form for interleaved).
TEST_P(RopeParityTest, Layer0RotationMatchesPyTorch) {
  const std::string dir = testing::GoldenDir(GetParam());
  const ModelConfig c = LoadConfig(dir + "/config.json");
  const TokenBatch tb = LoadTokens(dir + "/tokens.txt");
  NpyArray qkv = ReadNpy(dir + "/qkv_layer0.npy");
  const NpyArray want = ReadNpy(dir + "/qkv_layer0_rotated.npy");
  ASSERT_EQ(qkv.shape, (std::vector<int64_t>{tb.batch * tb.seq, 3 * c.d_model}));
  ASSERT_EQ(want.shape, qkv.shape);
  const Rope rope(c.positional.RopeOptionsFor(c.d_head()));
  rope.Apply(qkv.data.data(), tb.batch, tb.seq, c.d_model, c.n_heads);
  const testing::MaxError err = testing::MaxAbsError(qkv.data, want.data, 3 * c.d_model);
  EXPECT_LE(err, kRotationTol);
  std::printf("rope layer-0 rotation %-26s max abs %.3g\n", GetParam(), err.value());
}

INSTANTIATE_TEST_SUITE_P(Golden, RopeParityTest, ::testing::ValuesIn(kCases));

// An offset near 2^24 does not change the output: RoPE scores see distances
// only. rope_offset_2p24 is rope_half's model and tokens at offset 2^24 - 16.
TEST(RopeParityTest, OffsetNear2p24GivesTheSameOutput) {
  const auto near = Encoder::Load(testing::GoldenDir("rope_offset_2p24"));
  const auto zero = Encoder::Load(testing::GoldenDir("rope_half"));
  ASSERT_EQ(near->config().positional.offset, (int64_t{1} << 24) - 16);
  const TokenBatch tb = LoadTokens(testing::GoldenDir("rope_half") + "/tokens.txt");
  const int64_t d = zero->config().d_model;
  std::vector<float> a(tb.batch * tb.seq * d), b(a.size());  // [batch, seq, d_model]
  EncoderWorkspace ws = zero->MakeWorkspace(tb.batch * tb.seq);
  const std::vector<int32_t> ids = tb.Padded(0);
  zero->Forward({ids.data(), tb.batch, tb.seq, nullptr}, EncoderStage::kFinal, a.data(), ws);
  near->Forward({ids.data(), tb.batch, tb.seq, nullptr}, EncoderStage::kFinal, b.data(), ws);
  EXPECT_LE(testing::RealTokenError(b.data(), a.data(), tb, d), testing::kGoldenOutputTol);
}

}  // namespace
}  // namespace phasor

// RoPE encoders against the PyTorch reference forward pass of
// tests/data/make_golden.py (q and k rotated after the in-projection), on the
// golden cases tests/data/golden/rope_*. The full-encoder tests skip while the
// encoder of this build refuses kind "rope"; the layer-0 rotation test runs
// the Rope layer alone on PyTorch's in-projection and always runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "engine/error.h"
#include "engine/npy.h"
#include "engine/parallel.h"
#include "layers/rope.h"
#include "models/config.h"
#include "models/encoder.h"
#include "models/tokens.h"

namespace phasor {
namespace {

constexpr double kEmbeddingTol = 1e-5;  // x is the (scaled) embedding alone
constexpr double kOutputTol = 1e-4;     // the contract's parity bound
constexpr double kRotationTol = 2e-5;   // one rotation of values up to ~5 in float

const std::string kGolden = std::string(PHASOR_TEST_DATA) + "/golden/";
const char kUnsupported[] = "positional kind 'rope' is not supported by this build";

const char* const kCases[] = {"rope_half",   "rope_offset_2p24", "rope_interleaved_partial",
                              "rope_linear", "rope_ntk",         "rope_dynamic_ragged",
                              "rope_yarn",   "rope_llama3"};

// The encoder of a golden case, or null when this build refuses kind rope.
std::unique_ptr<Encoder> LoadOrNull(const std::string& dir) {
  try {
    return Encoder::Load(dir);
  } catch (const Error& e) {
    if (std::string(e.what()).find(kUnsupported) != std::string::npos) return nullptr;
    throw;
  }
}

double MaxAbsDiff(const std::vector<float>& got, const std::vector<float>& want,
                  const TokenBatch& tb, int64_t d) {
  double err = 0;
  for (int64_t b = 0; b < tb.batch; ++b) {
    for (int64_t j = 0; j < tb.lengths[b]; ++j) {
      for (int64_t k = 0; k < d; ++k) {
        const size_t i = static_cast<size_t>((b * tb.seq + j) * d + k);
        err = std::max(err, static_cast<double>(std::fabs(got[i] - want[i])));
      }
    }
  }
  return err;
}

class RopeParityTest : public ::testing::TestWithParam<const char*> {};

TEST_P(RopeParityTest, MatchesPyTorch) {
  const std::string dir = kGolden + GetParam();
  const auto enc = LoadOrNull(dir);
  if (!enc) GTEST_SKIP() << kUnsupported << " (models/encoder.cc does not build a Rope yet)";
  const ModelConfig& c = enc->config();
  ASSERT_EQ(c.positional.kind, PositionalKind::kRope);
  const TokenBatch tb = LoadTokens(dir + "/tokens.txt", c.pad_token_id);
  const NpyArray x = ReadNpy(dir + "/embeddings.npy");
  const NpyArray y = ReadNpy(dir + "/expected.npy");
  ASSERT_EQ(x.shape, (std::vector<int64_t>{tb.batch, tb.seq, c.d_model}));
  ASSERT_EQ(y.shape, x.shape);
  EncoderWorkspace ws = enc->MakeWorkspace(tb.batch * tb.seq);
  std::vector<float> out(x.data.size());
  for (int threads : {1, 2}) {
    SetNumThreads(threads);
    enc->Forward(tb.ids.data(), tb.batch, tb.seq, tb.lengths.data(), EncoderStage::kEmbeddings,
                 out.data(), ws);
    const double ex = MaxAbsDiff(out, x.data, tb, c.d_model);
    EXPECT_LE(ex, kEmbeddingTol);
    enc->Forward(tb.ids.data(), tb.batch, tb.seq, tb.lengths.data(), EncoderStage::kFinal,
                 out.data(), ws);
    const double ey = MaxAbsDiff(out, y.data, tb, c.d_model);
    EXPECT_LE(ey, kOutputTol);
    if (threads == 2) {
      std::printf("rope parity %-26s embeddings max abs %.3g, output max abs %.3g\n", GetParam(),
                  ex, ey);
    }
  }
  SetNumThreads(0);
}

// The rotation alone: layer 0's in-projection as PyTorch computed it, rotated
// by phasor's Rope, against PyTorch's rotation (HF rotate_half for layout half,
// Meta's complex form for interleaved). Runs whatever the encoder supports.
TEST_P(RopeParityTest, Layer0RotationMatchesPyTorch) {
  const std::string dir = kGolden + GetParam();
  const ModelConfig c = LoadConfig(dir + "/config.json");
  const TokenBatch tb = LoadTokens(dir + "/tokens.txt", c.pad_token_id);
  NpyArray qkv = ReadNpy(dir + "/qkv_layer0.npy");
  const NpyArray want = ReadNpy(dir + "/qkv_layer0_rotated.npy");
  ASSERT_EQ(qkv.shape, (std::vector<int64_t>{tb.batch * tb.seq, 3 * c.d_model}));
  ASSERT_EQ(want.shape, qkv.shape);
  const Rope rope(c.positional.RopeOptionsFor(c.d_head()));
  rope.Apply(qkv.data.data(), tb.batch, tb.seq, c.d_model, c.n_heads);
  double err = 0;
  for (size_t i = 0; i < qkv.data.size(); ++i) {
    err = std::max(err, static_cast<double>(std::fabs(qkv.data[i] - want.data[i])));
  }
  EXPECT_LE(err, kRotationTol);
  std::printf("rope layer-0 rotation %-26s max abs %.3g\n", GetParam(), err);
}

INSTANTIATE_TEST_SUITE_P(Golden, RopeParityTest, ::testing::ValuesIn(kCases));

// An offset near 2^24 does not change the output: RoPE scores see distances
// only. rope_offset_2p24 is rope_half's model and tokens at offset 2^24 - 16.
TEST(RopeParityTest, OffsetNear2p24GivesTheSameOutput) {
  const auto near = LoadOrNull(kGolden + "rope_offset_2p24");
  if (!near) GTEST_SKIP() << kUnsupported;
  const auto zero = Encoder::Load(kGolden + "rope_half");
  ASSERT_EQ(near->config().positional.offset, (int64_t{1} << 24) - 16);
  const TokenBatch tb = LoadTokens(kGolden + "rope_half/tokens.txt", std::nullopt);
  const int64_t d = zero->config().d_model;
  std::vector<float> a(tb.batch * tb.seq * d), b(a.size());
  EncoderWorkspace ws = zero->MakeWorkspace(tb.batch * tb.seq);
  zero->Forward(tb.ids.data(), tb.batch, tb.seq, nullptr, EncoderStage::kFinal, a.data(), ws);
  near->Forward(tb.ids.data(), tb.batch, tb.seq, nullptr, EncoderStage::kFinal, b.data(), ws);
  EXPECT_LE(MaxAbsDiff(a, b, tb, d), kOutputTol);
}

}  // namespace
}  // namespace phasor

// The encoder against PyTorch's nn.TransformerEncoder on the same weights.
// The golden cases in tests/data/golden were made by tests/data/make_golden.py
// (PyTorch, float32, eval mode); CI reads them without needing PyTorch.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "engine/npy.h"
#include "engine/parallel.h"
#include "models/encoder.h"
#include "models/tokens.h"

namespace phasor {
namespace {

constexpr double kEmbeddingTol = 1e-5;  // PE 2e-6 plus float rounding of scaled rows
constexpr double kOutputTol = 1e-4;     // the contract's parity bound

const std::string kGolden = std::string(PHASOR_TEST_DATA) + "/golden/";

double MaxAbsDiff(const std::vector<float>& got, const NpyArray& want, const TokenBatch& tb,
                  int64_t d) {
  double err = 0;
  for (int64_t b = 0; b < tb.batch; ++b) {
    for (int64_t j = 0; j < tb.lengths[b]; ++j) {
      for (int64_t k = 0; k < d; ++k) {
        const size_t i = static_cast<size_t>((b * tb.seq + j) * d + k);
        err = std::max(err, static_cast<double>(std::fabs(got[i] - want.data[i])));
      }
    }
  }
  return err;
}

class ParityTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ParityTest, MatchesPyTorch) {
  const std::string dir = kGolden + GetParam();
  const auto enc = Encoder::Load(dir);
  const ModelConfig& c = enc->config();
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
    const double ex = MaxAbsDiff(out, x, tb, c.d_model);
    EXPECT_LE(ex, kEmbeddingTol);
    enc->Forward(tb.ids.data(), tb.batch, tb.seq, tb.lengths.data(), EncoderStage::kFinal,
                 out.data(), ws);
    const double ey = MaxAbsDiff(out, y, tb, c.d_model);
    EXPECT_LE(ey, kOutputTol);
    // Padded positions are zero, as in PyTorch's output.
    for (int64_t b = 0; b < tb.batch; ++b) {
      for (int64_t k = tb.lengths[b] * c.d_model; k < tb.seq * c.d_model; ++k) {
        ASSERT_EQ(out[b * tb.seq * c.d_model + k], 0.0f);
      }
    }
    if (threads == 2) {
      std::printf("parity %-28s embeddings max abs %.3g, output max abs %.3g\n", GetParam(), ex,
                  ey);
    }
  }
  SetNumThreads(0);
}

INSTANTIATE_TEST_SUITE_P(Golden, ParityTest,
                         ::testing::Values("post_ln_relu", "pre_ln_gelu_final_norm",
                                           "split_half_minus_one", "interleaved_half_minus_one",
                                           "split_d_model", "offset_scale", "ragged_padding",
                                           "d96_h6", "learned", "base_500"));

}  // namespace
}  // namespace phasor

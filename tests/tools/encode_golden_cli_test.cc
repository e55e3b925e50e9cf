// `phasor encode`'s numbers, through the command line, against the golden
// cases of tests/data/golden (PyTorch float32, made by tests/data/make_golden.py):
// the final hidden states to the contract's 1e-4, the encoder's input to the
// PE contract's 2e-6 plus the float rounding of the embedding sum.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "engine/npy.h"
#include "models/config.h"
#include "models/tokens.h"
#include "tests/support/paths.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

// Each line's length less its trailing pad ids (the rows phasor encodes).
std::vector<int64_t> RealLengths(const TokenBatch& b, std::optional<int32_t> pad_id) {
  std::vector<int64_t> real(b.lengths);
  for (int64_t i = 0; i < b.batch && pad_id; ++i) {
    while (real[i] > 0 && b.ids[b.offsets[i] + real[i] - 1] == *pad_id) --real[i];
  }
  return real;
}

using testing::RunPhasor;

constexpr double kOutputTol = 1e-4;      // the contract's parity bound
constexpr double kEmbeddingsTol = 4e-6;  // PE's 2e-6 and the float rounding of x

// The largest |got - want| over every element, or +inf at the first element
// where either is NaN or infinite; where holds that element's [b, j, k].
double MaxAbsDiff(const NpyArray& got, const NpyArray& want, std::string* where) {
  double worst = 0;
  const auto& s = want.shape;
  for (size_t i = 0; i < want.data.size(); ++i) {
    const double g = got.data[i], w = want.data[i];
    const double d = std::fabs(g - w);
    if (!std::isfinite(g) || !std::isfinite(w) || d > worst) {
      const size_t k = i % s[2], j = i / s[2] % s[1], b = i / s[2] / s[1];
      *where = "[" + std::to_string(b) + ", " + std::to_string(j) + ", " + std::to_string(k) +
               "]: got " + std::to_string(g) + ", want " + std::to_string(w);
      if (!std::isfinite(g) || !std::isfinite(w)) return INFINITY;
      worst = d;
    }
  }
  return worst;
}

// The measure itself fails on NaN, wherever it is.
TEST(EncodeGoldenMeasureTest, FailsOnNanAndNamesThePosition) {
  NpyArray want{{1, 2, 2}, {0, 1, 2, 3}};
  NpyArray got = want;
  std::string where;
  EXPECT_EQ(MaxAbsDiff(got, want, &where), 0.0);
  got.data[3] = NAN;
  EXPECT_EQ(MaxAbsDiff(got, want, &where), INFINITY);
  EXPECT_EQ(where.rfind("[0, 1, 1]", 0), 0u) << where;
  got.data[3] = 3;
  got.data[0] = 0.5f;
  EXPECT_EQ(MaxAbsDiff(got, want, &where), 0.5);
}

class EncodeGoldenCliTest : public ::testing::TestWithParam<const char*> {};

TEST_P(EncodeGoldenCliTest, MatchesPyTorch) {
  const std::string dir = std::string(phasor::testing::kTestDataDir) + "/golden/" + GetParam();
  const std::string out = ::testing::TempDir() + "encode_golden_" + std::to_string(getpid()) + "_" +
                          GetParam() + ".npy";
  for (const char* stage : {"final", "embeddings"}) {
    const auto r = RunPhasor("encode --model " + dir + " --tokens-file " + dir +
                             "/tokens.txt --stage " + stage + " --output " + out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const bool final = std::string(stage) == "final";
    const NpyArray want = ReadNpy(dir + (final ? "/expected.npy" : "/embeddings.npy"));
    const NpyArray got = ReadNpy(out);
    ASSERT_EQ(got.shape, want.shape);
    ASSERT_EQ(got.data.size(), want.data.size());
    // PyTorch's embeddings file holds x at padded positions too, where phasor
    // writes 0 in every stage: those positions are compared as 0.
    NpyArray masked = want;
    const ModelConfig c = LoadConfig(dir + "/config.json");
    const TokenBatch tb = LoadTokens(dir + "/tokens.txt");
    const std::vector<int64_t> real = RealLengths(tb, c.pad_token_id);
    const int64_t d = c.d_model;
    for (int64_t b = 0; b < tb.batch; ++b) {
      std::fill(masked.data.begin() + (b * tb.seq + real[b]) * d,
                masked.data.begin() + (b + 1) * tb.seq * d, 0.0f);
    }
    std::string where;
    const double err = MaxAbsDiff(got, masked, &where);
    EXPECT_LE(err, final ? kOutputTol : kEmbeddingsTol) << stage << ", worst at " << where;
  }
  std::remove(out.c_str());
}

INSTANTIATE_TEST_SUITE_P(Golden, EncodeGoldenCliTest,
                         ::testing::Values("post_ln_relu", "pre_ln_gelu_final_norm",
                                           "ragged_padding", "rope_half"));

}  // namespace
}  // namespace phasor

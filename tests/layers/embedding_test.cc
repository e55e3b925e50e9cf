// The embedding layer against token rows plus an independent PE evaluation.
#include "layers/embedding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "engine/error.h"
#include "engine/parallel.h"
#include "tests/support/max_error.h"
#include "tests/support/pe_reference.h"
#include "tests/support/random_weights.h"

namespace phasor {
namespace {

// The contract's 2e-6 for PE, plus two roundings to float (the scaled token
// value, then the sum): values stay below 4.5 (|token·√48| < 3.5, |PE| <= 1),
// where half an ulp of float is 2^-22.
constexpr double kTol = 2e-6 + 2 * 0x1p-22;

using testing::RandomEmbedding;

struct Case {
  PeMode mode;
  bool scale;
  int64_t offset;
};

class EmbeddingTest : public ::testing::TestWithParam<Case> {};

TEST_P(EmbeddingTest, TokenRowsPlusExactPe) {
  const Case c = GetParam();
  const int64_t vocab = 50, d = 48, batch = 3, seq = 300;
  Weights w = RandomEmbedding(vocab, d, 1);
  SinusoidalOptions po;
  po.d_model = d;
  po.mode = c.mode;
  po.max_len = 400;
  SinusoidalEncoding pe(po);
  Embedding emb(w, {vocab, d, c.scale, c.offset}, &pe);
  std::vector<int32_t> ids(batch * seq);
  std::mt19937 rng(3);
  for (auto& id : ids) id = static_cast<int32_t>(rng() % vocab);
  std::vector<float> out(batch * seq * d);
  emb.Forward(ids.data(), batch, seq, out.data());
  const float* table = w.Get("embedding.weight").data.data();
  const long double scale = c.scale ? sqrtl(static_cast<long double>(d)) : 1.0L;
  testing::MaxError err(d);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t j = 0; j < seq; ++j) {
      const auto ref =
          testing::RefPeRow(c.offset + j, d, 10000.0L, testing::RefLayout::kInterleaved,
                            testing::RefDenominator::kDModel);
      for (int64_t k = 0; k < d; ++k) {
        const long double want = table[ids[b * seq + j] * d + k] * scale + ref[k];
        err.Add((b * seq + j) * d + k, out[(b * seq + j) * d + k], want);
      }
    }
  }
  EXPECT_LE(err, kTol);
}

INSTANTIATE_TEST_SUITE_P(Modes, EmbeddingTest,
                         ::testing::Values(Case{PeMode::kCached, false, 0},
                                           Case{PeMode::kOnTheFly, false, 0},
                                           Case{PeMode::kAuto, true, 7},
                                           Case{PeMode::kAuto, false, 350},
                                           Case{PeMode::kOnTheFly, true, 1 << 23}));

TEST(EmbeddingTest, NoPositionalAndLearned) {
  const int64_t vocab = 10, d = 4;
  Weights w = RandomEmbedding(vocab, d, 2);
  const float* table = w.Get("embedding.weight").data.data();
  const int32_t ids[3] = {9, 0, 4};
  std::vector<float> out(3 * d);
  Embedding none(w, {vocab, d, false, 0}, nullptr);
  none.Forward(ids, 1, 3, out.data());
  for (int j = 0; j < 3; ++j) {
    for (int k = 0; k < d; ++k) EXPECT_EQ(out[j * d + k], table[ids[j] * d + k]);
  }
  std::vector<float> learned(5 * d);
  for (size_t k = 0; k < learned.size(); ++k) learned[k] = static_cast<float>(k);
  Embedding with_table(w, {vocab, d, false, 2}, nullptr, learned.data(), 5);
  with_table.Forward(ids, 1, 3, out.data());
  for (int j = 0; j < 3; ++j) {
    for (int k = 0; k < d; ++k) {
      EXPECT_EQ(out[j * d + k], table[ids[j] * d + k] + learned[(2 + j) * d + k]);
    }
  }
  const int32_t four[4] = {1, 1, 1, 1};
  EXPECT_THROW(with_table.Forward(four, 1, 4, out.data()), Error);  // positions 2..5, table of 5
}

TEST(EmbeddingTest, BadTokenIdNamesIdSequenceAndPosition) {
  const int64_t vocab = 10, d = 4;
  Weights w = RandomEmbedding(vocab, d, 2);
  SinusoidalOptions po;
  po.d_model = d;
  SinusoidalEncoding pe(po);
  Embedding emb(w, {vocab, d, false, 0}, &pe);
  std::vector<float> out(8 * d);
  for (int32_t bad : {10, -1, 1 << 30}) {
    const int32_t ids[8] = {1, 2, 3, 4, 5, 6, bad, 7};
    try {
      emb.Forward(ids, 2, 4, out.data());
      FAIL() << "expected an error for id " << bad;
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("token id " + std::to_string(bad)), std::string::npos) << m;
      EXPECT_NE(m.find("sequence 1"), std::string::npos) << m;
      EXPECT_NE(m.find("position 2"), std::string::npos) << m;
    }
  }
}

TEST(EmbeddingTest, CachedSequencePastMaxLenIsAnError) {
  const int64_t vocab = 10, d = 4;
  Weights w = RandomEmbedding(vocab, d, 2);
  SinusoidalOptions po;
  po.d_model = d;
  po.max_len = 4;
  po.mode = PeMode::kCached;
  SinusoidalEncoding pe(po);
  Embedding emb(w, {vocab, d, false, 0}, &pe);
  const int32_t ids[5] = {1, 1, 1, 1, 1};
  std::vector<float> out(5 * d);
  EXPECT_NO_THROW(emb.Forward(ids, 1, 4, out.data()));
  EXPECT_THROW(emb.Forward(ids, 1, 5, out.data()), Error);
}

TEST(EmbeddingTest, ZeroTokensIsEmpty) {
  Weights w = RandomEmbedding(10, 4, 2);
  Embedding emb(w, {10, 4, false, 0}, nullptr);
  EXPECT_NO_THROW(emb.Forward(nullptr, 0, 0, nullptr));
  EXPECT_NO_THROW(emb.Forward(nullptr, 3, 0, nullptr));
}

TEST(EmbeddingTest, MisshapenTableNamesTheTensor) {
  Weights w = RandomEmbedding(10, 4, 2);
  try {
    Embedding emb(w, {11, 4, false, 0}, nullptr);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("embedding.weight': got [10, 4], expected [11, 4]"),
              std::string::npos)
        << e.what();
  }
}

TEST(EmbeddingTest, IdenticalForOneAndTwoThreads) {
  const int64_t vocab = 100, d = 64, batch = 3, seq = 2000;
  Weights w = RandomEmbedding(vocab, d, 5);
  SinusoidalOptions po;
  po.d_model = d;
  po.mode = PeMode::kAuto;
  po.max_len = 1000;
  SinusoidalEncoding pe(po);
  Embedding emb(w, {vocab, d, true, 3}, &pe);
  std::vector<int32_t> ids(batch * seq);
  for (size_t k = 0; k < ids.size(); ++k) ids[k] = static_cast<int32_t>((k * 37) % vocab);
  std::vector<float> one(batch * seq * d), two(batch * seq * d);
  SetNumThreads(1);
  emb.Forward(ids.data(), batch, seq, one.data());
  SetNumThreads(2);
  emb.Forward(ids.data(), batch, seq, two.data());
  SetNumThreads(0);
  EXPECT_EQ(0, std::memcmp(one.data(), two.data(), one.size() * sizeof(float)));
}

}  // namespace
}  // namespace phasor

namespace phasor {
namespace {

// A long sequence embedded in pieces equals one call over the whole, bit for bit.
TEST(EmbeddingTest, ChunkedEqualsUnchunked) {
  const int64_t vocab = 64, d = 32, n = 5000;
  Weights w = RandomEmbedding(vocab, d, 9);
  for (PeMode mode : {PeMode::kOnTheFly, PeMode::kAuto}) {
    SinusoidalOptions po;
    po.d_model = d;
    po.mode = mode;
    po.max_len = 1500;
    SinusoidalEncoding pe(po);
    Embedding emb(w, {vocab, d, true, 5}, &pe);
    std::vector<int32_t> ids(n);
    for (int64_t j = 0; j < n; ++j) ids[j] = static_cast<int32_t>((j * 7919) % vocab);
    std::vector<float> whole(n * d), pieces(n * d);
    emb.Forward(ids.data(), 1, n, whole.data());
    int64_t j = 0;
    for (int64_t len : {1, 255, 257, 999, 1000}) {
      emb.ForwardRange(ids.data() + j, len, j, pieces.data() + j * d);
      j += len;
    }
    emb.ForwardRange(ids.data() + j, n - j, j, pieces.data() + j * d);
    EXPECT_EQ(0, std::memcmp(whole.data(), pieces.data(), whole.size() * sizeof(float)))
        << ToString(mode);
  }
}

}  // namespace
}  // namespace phasor

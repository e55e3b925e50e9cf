// layers/attention: multi-head self-attention against a naive full-softmax
// implementation in double written here, with and without key padding.
#include "layers/attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/parallel.h"
#include "tests/support/error_of.h"
#include "tests/support/max_error.h"

namespace phasor {
namespace {

constexpr double kTol = 1e-5;  // max abs error against double (seen: ~1e-6); outputs are O(1)

std::vector<float> Random(int64_t n, uint32_t seed, float bound) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-bound, bound);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

Weights AttentionWeights(const std::string& prefix, int64_t d) {
  Weights w("test weights");
  // Larger than PyTorch's init so that the softmax is far from uniform.
  const float a = 2.0f / std::sqrt(static_cast<float>(d));
  w.Add(prefix + "in_proj_weight", {3 * d, d}, Random(3 * d * d, 1, a));
  w.Add(prefix + "in_proj_bias", {3 * d}, Random(3 * d, 2, 0.2f));
  w.Add(prefix + "out_proj.weight", {d, d}, Random(d * d, 3, a));
  w.Add(prefix + "out_proj.bias", {d}, Random(d, 4, 0.2f));
  return w;
}

struct Case {
  int64_t d_model, n_heads, seq;
  std::vector<int64_t> lengths;  // one per sequence; == seq everywhere: no padding
};

// The naive definition, in double: projections, then per (sequence, head,
// query) a full softmax over the sequence's valid keys, then out_proj.
std::vector<double> Reference(const std::vector<float>& x, const Weights& w,
                              const std::string& prefix, const Case& c, bool negate_q = false) {
  const int64_t d = c.d_model, n_heads = c.n_heads, seq = c.seq;
  const int64_t batch = static_cast<int64_t>(c.lengths.size());
  const std::vector<int64_t>& lengths = c.lengths;
  const float* w_in = w.Get(prefix + "in_proj_weight").data.data();
  const float* b_in = w.Get(prefix + "in_proj_bias").data.data();
  const float* w_out = w.Get(prefix + "out_proj.weight").data.data();
  const float* b_out = w.Get(prefix + "out_proj.bias").data.data();
  const int64_t tokens = batch * seq, d_head = d / n_heads;
  std::vector<double> qkv(tokens * 3 * d), heads(tokens * d), out(tokens * d);
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t o = 0; o < 3 * d; ++o) {
      double s = b_in[o];
      for (int64_t i = 0; i < d; ++i) s += double{x[t * d + i]} * w_in[o * d + i];
      qkv[t * 3 * d + o] = negate_q && o < d ? -s : s;
    }
  }
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t n = lengths[b];
    for (int64_t h = 0; h < n_heads; ++h) {
      for (int64_t i = 0; i < seq; ++i) {
        const double* q = &qkv[((b * seq + i) * 3) * d + h * d_head];
        std::vector<double> p(n);
        double max = -INFINITY, sum = 0.0;
        for (int64_t j = 0; j < n; ++j) {
          const double* k = &qkv[((b * seq + j) * 3 + 1) * d + h * d_head];
          double dot = 0.0;
          for (int64_t c = 0; c < d_head; ++c) dot += q[c] * k[c];
          p[j] = dot / std::sqrt(static_cast<double>(d_head));
          max = std::max(max, p[j]);
        }
        for (int64_t j = 0; j < n; ++j) sum += (p[j] = std::exp(p[j] - max));
        for (int64_t c = 0; c < d_head; ++c) {
          double acc = 0.0;
          for (int64_t j = 0; j < n; ++j)
            acc += p[j] * qkv[((b * seq + j) * 3 + 2) * d + h * d_head + c];
          heads[(b * seq + i) * d + h * d_head + c] = n > 0 ? acc / sum : 0.0;
        }
      }
    }
  }
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t o = 0; o < d; ++o) {
      double s = b_out[o];
      for (int64_t i = 0; i < d; ++i) s += heads[t * d + i] * w_out[o * d + i];
      out[t * d + o] = s;
    }
  }
  return out;
}

void PrintTo(const Case& c, std::ostream* os) {
  *os << "d_model " << c.d_model << ", " << c.n_heads << " heads, seq " << c.seq << ", lengths";
  for (int64_t n : c.lengths) *os << " " << n;
}

class AttentionTest : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionTest, MatchesNaiveFullSoftmax) {
  const Case& c = GetParam();
  const int64_t batch = static_cast<int64_t>(c.lengths.size()), tokens = batch * c.seq;
  const Weights w = AttentionWeights("layers.0.self_attn.", c.d_model);
  const MultiHeadSelfAttention attn(w, "layers.0.self_attn.", {c.d_model, c.n_heads});
  AttentionWorkspace ws(tokens, {c.d_model, c.n_heads});
  const std::vector<float> x = Random(tokens * c.d_model, 5, 1.5f);
  std::vector<float> out(x.size(), NAN);
  attn.Forward(x.data(), {batch, c.seq, c.lengths.data()}, out.data(), ws);
  const std::vector<double> ref = Reference(x, w, "layers.0.self_attn.", c);
  // Every row, padded queries included: they attend to the valid keys too.
  EXPECT_LE(testing::MaxAbsError(out.data(), ref.data(), tokens * c.d_model), kTol);

  // Without lengths, every key is valid.
  const std::vector<int64_t> full(batch, c.seq);
  attn.Forward(x.data(), {batch, c.seq, nullptr}, out.data(), ws);
  const std::vector<double> ref_full =
      Reference(x, w, "layers.0.self_attn.", {c.d_model, c.n_heads, c.seq, full});
  EXPECT_LE(testing::MaxAbsError(out.data(), ref_full.data(), tokens * c.d_model), kTol);

  std::vector<float> in_place = x;  // out may equal x
  attn.Forward(in_place.data(), {batch, c.seq, nullptr}, in_place.data(), ws);
  EXPECT_EQ(in_place, out);
}

// A trivial QkRotation: negates q, so every score flips sign.
class NegateQ : public QkRotation {
 public:
  void Apply(float* qkv, int64_t batch, int64_t seq, const QkvLayout& l) const override {
    const int64_t q_width = l.q_heads * l.d_head;
    for (int64_t t = 0; t < batch * seq; ++t) {
      for (int64_t j = 0; j < q_width; ++j) qkv[t * l.row() + j] = -qkv[t * l.row() + j];
    }
  }
};

TEST_P(AttentionTest, RotationIsAppliedToTheProjection) {
  const Case& c = GetParam();
  const int64_t batch = static_cast<int64_t>(c.lengths.size()), tokens = batch * c.seq;
  const Weights w = AttentionWeights("", c.d_model);
  const NegateQ negate_q;
  const MultiHeadSelfAttention attn(w, "", {c.d_model, c.n_heads, &negate_q});
  AttentionWorkspace ws(tokens, {c.d_model, c.n_heads});
  const std::vector<float> x = Random(tokens * c.d_model, 9, 1.5f);
  std::vector<float> out(x.size(), NAN);
  attn.Forward(x.data(), {batch, c.seq, c.lengths.data()}, out.data(), ws);
  const std::vector<double> ref = Reference(x, w, "", c, /*negate_q=*/true);
  EXPECT_LE(testing::MaxAbsError(out.data(), ref.data(), tokens * c.d_model), kTol);
  if (c.seq > 1) {  // and it differs from no rotation
    const std::vector<double> plain = Reference(x, w, "", c);
    EXPECT_GT(testing::MaxAbsError(out.data(), plain.data(), tokens * c.d_model), 1e-2);
  }
}

TEST_P(AttentionTest, PaddedKeysAreIgnored) {
  const Case& c = GetParam();
  const int64_t batch = static_cast<int64_t>(c.lengths.size()), tokens = batch * c.seq;
  const Weights w = AttentionWeights("", c.d_model);
  const MultiHeadSelfAttention attn(w, "", {c.d_model, c.n_heads});
  AttentionWorkspace ws(tokens, {c.d_model, c.n_heads});
  std::vector<float> x = Random(tokens * c.d_model, 6, 1.5f);
  std::vector<float> out(x.size()), out_other_padding(x.size());
  attn.Forward(x.data(), {batch, c.seq, c.lengths.data()}, out.data(), ws);
  for (int64_t b = 0; b < batch; ++b) {  // change every padded token
    for (int64_t t = c.lengths[b]; t < c.seq; ++t) {
      for (int64_t j = 0; j < c.d_model; ++j) x[(b * c.seq + t) * c.d_model + j] = 1e3f;
    }
  }
  attn.Forward(x.data(), {batch, c.seq, c.lengths.data()}, out_other_padding.data(), ws);
  for (int64_t b = 0; b < batch; ++b) {
    const size_t begin = static_cast<size_t>(b * c.seq * c.d_model);
    const size_t end = begin + static_cast<size_t>(c.lengths[b] * c.d_model);
    EXPECT_TRUE(
        std::equal(out.begin() + begin, out.begin() + end, out_other_padding.begin() + begin))
        << "sequence " << b;
    // A sequence of length 0 attends to nothing: its rows are out_proj.bias.
    for (int64_t t = 0; c.lengths[b] == 0 && t < c.seq; ++t) {
      for (int64_t j = 0; j < c.d_model; ++j) {
        ASSERT_EQ(out[(b * c.seq + t) * c.d_model + j], w.Get("out_proj.bias").data[j]);
      }
    }
  }
}

TEST_P(AttentionTest, EachSequenceAsIfAlone) {
  const Case& c = GetParam();
  const int64_t batch = static_cast<int64_t>(c.lengths.size()), tokens = batch * c.seq;
  const Weights w = AttentionWeights("", c.d_model);
  const MultiHeadSelfAttention attn(w, "", {c.d_model, c.n_heads});
  AttentionWorkspace ws(tokens, {c.d_model, c.n_heads});
  const std::vector<float> x = Random(tokens * c.d_model, 7, 1.5f);
  std::vector<float> out(x.size()), alone(x.size());
  attn.Forward(x.data(), {batch, c.seq, c.lengths.data()}, out.data(), ws);
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t offset = b * c.seq * c.d_model;
    attn.Forward(x.data() + offset, {1, c.lengths[b], nullptr}, alone.data() + offset, ws);
    std::vector<double> want(out.begin() + offset, out.begin() + offset + c.lengths[b] * c.d_model);
    EXPECT_LE(testing::MaxAbsError(alone.data() + offset, want.data(), c.lengths[b] * c.d_model),
              kTol)
        << "sequence " << b;
  }
}

TEST_P(AttentionTest, IdenticalForOneAndTwoThreads) {
  const Case& c = GetParam();
  const int64_t batch = static_cast<int64_t>(c.lengths.size()), tokens = batch * c.seq;
  const Weights w = AttentionWeights("", c.d_model);
  const MultiHeadSelfAttention attn(w, "", {c.d_model, c.n_heads});
  AttentionWorkspace ws(tokens, {c.d_model, c.n_heads}, 2);
  const std::vector<float> x = Random(tokens * c.d_model, 8, 1.5f);
  std::vector<float> one(x.size()), two(x.size());
  SetNumThreads(1);
  attn.Forward(x.data(), {batch, c.seq, c.lengths.data()}, one.data(), ws);
  SetNumThreads(2);
  attn.Forward(x.data(), {batch, c.seq, c.lengths.data()}, two.data(), ws);
  SetNumThreads(0);
  EXPECT_EQ(0, std::memcmp(one.data(), two.data(), one.size() * sizeof(float)));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, AttentionTest,
    ::testing::Values(Case{96, 6, 1, {1}},                 // one token
                      Case{96, 6, 70, {70, 33}},           // seq not a multiple of the query tile
                      Case{64, 4, 530, {530, 1, 0, 129}},  // several key tiles; an empty sequence
                      Case{32, 1, 200, {200}},             // one head
                      Case{48, 8, 65, {64, 65}},           // d_head 6
                      Case{16, 16, 9, {9, 3}}));           // d_head 1

// At bf16 the projections and, for sequences of kMinBf16Keys keys or more, the
// attention products round their inputs to bfloat16 (at int8 the projections
// quantize theirs): the naive definition holds to that precision. Padded keys are never read (NaN
// there changes nothing), a sequence gives the same bits alone as in its batch, and the thread
// count does not change a bit.
class AttentionAtBf16Test : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionAtBf16Test, MatchesNaiveAtReducedPrecision) {
  const Case& c = GetParam();
  for (const auto& [precision, tol] :
       {std::pair{Precision::kBf16, 0.03}, {Precision::kInt8, 0.06}}) {
    SCOPED_TRACE(ToString(precision));
    const int64_t batch = static_cast<int64_t>(c.lengths.size()), tokens = batch * c.seq;
    const Weights w = AttentionWeights("", c.d_model);
    const AttentionOptions options{c.d_model, c.n_heads, nullptr, precision};
    const MultiHeadSelfAttention attn(w, "", options);
    AttentionWorkspace ws(tokens, options, 2);
    std::vector<float> x = Random(tokens * c.d_model, 10, 1.5f);
    std::vector<float> out = Random(tokens * c.d_model, 11, 1.0f), two = out, alone = out;
    SetNumThreads(1);
    attn.Forward(x.data(), {batch, c.seq, c.lengths.data()}, out.data(), ws);
    SetNumThreads(2);
    const std::vector<double> ref = Reference(x, w, "", c);
    for (int64_t b = 0; b < batch; ++b) {  // real tokens only: padded x is NaN below
      const int64_t at = b * c.seq * c.d_model, n = c.lengths[b] * c.d_model;
      EXPECT_LE(testing::MaxAbsError(out.data() + at, ref.data() + at, n), tol) << "sequence " << b;
      for (int64_t j = at + n; j < at + c.seq * c.d_model; ++j) x[j] = NAN;
    }
    attn.Forward(x.data(), {batch, c.seq, c.lengths.data()}, two.data(), ws);
    SetNumThreads(0);
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t at = b * c.seq * c.d_model, n = c.lengths[b] * c.d_model;
      EXPECT_EQ(0, std::memcmp(out.data() + at, two.data() + at, n * sizeof(float)))
          << "sequence " << b << ": NaN padding or two threads changed it";
      attn.Forward(x.data() + at, {1, c.lengths[b], nullptr}, alone.data() + at, ws);
      EXPECT_EQ(0, std::memcmp(out.data() + at, alone.data() + at, n * sizeof(float)))
          << "sequence " << b << " alone";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, AttentionAtBf16Test,
    ::testing::Values(Case{128, 2, 600, {600, 40, 31, 0}},  // key tiles; both sides of 32 keys
                      Case{96, 2, 70, {70, 33}},            // d_head 48: a partial value panel
                      Case{66, 2, 45, {45, 32, 1}},         // d_head 33: odd
                      Case{48, 8, 65, {64, 65}},            // d_head 6
                      // The packed buffer's bound at its tightest: seq 32,
                      // every token of the workspace, heads of 1 and of 16.
                      Case{32, 32, 32, {32, 32, 32, 32}}, Case{64, 4, 32, {32, 32, 32}}));

TEST(AttentionTest, BadLengthsAndWorkspacesAreErrors) {
  const Weights w = AttentionWeights("", 16);
  const MultiHeadSelfAttention attn(w, "", {16, 4});
  AttentionWorkspace ws(20, {16, 4});
  std::vector<float> x(size_t{20} * 16), out(size_t{20} * 16);
  const int64_t too_long[2] = {10, 11}, negative[2] = {-1, 3};
  EXPECT_THROW(attn.Forward(x.data(), {2, 10, too_long}, out.data(), ws), Error);
  EXPECT_THROW(attn.Forward(x.data(), {2, 10, negative}, out.data(), ws), Error);
  EXPECT_THROW(attn.Forward(x.data(), {3, 7, nullptr}, out.data(), ws), Error);  // 21 > 20 tokens
  AttentionWorkspace other_heads(20, {16, 2});
  EXPECT_THROW(attn.Forward(x.data(), {2, 10, nullptr}, out.data(), other_heads), Error);
  attn.Forward(x.data(), {0, 10, nullptr}, out.data(), ws);  // no tokens: nothing to do
  EXPECT_THROW(AttentionWorkspace(10, {16, 3}), Error);      // 3 does not divide 16
}

std::string ConstructionError(const Weights& w, const AttentionOptions& options) {
  return testing::ErrorOf([&] { MultiHeadSelfAttention attn(w, "layers.5.self_attn.", options); });
}

TEST(AttentionTest, MissingOrMisshapenWeightsNameTheTensor) {
  const Weights w = AttentionWeights("layers.5.self_attn.", 16);
  const std::string wrong = ConstructionError(w, {24, 4});
  EXPECT_NE(wrong.find("'layers.5.self_attn.in_proj_weight': got [48, 16], expected [72, 24]"),
            std::string::npos)
      << wrong;
  EXPECT_NE(ConstructionError(w, {16, 5}).find("n_heads"), std::string::npos);

  Weights missing("model.safetensors");
  missing.Add("layers.5.self_attn.in_proj_weight", {48, 16}, std::vector<float>(size_t{48} * 16));
  missing.Add("layers.5.self_attn.in_proj_bias", {48}, std::vector<float>(48));
  missing.Add("layers.5.self_attn.out_proj.weight", {16, 17}, std::vector<float>(size_t{16} * 17));
  const std::string misshapen = ConstructionError(missing, {16, 4});
  EXPECT_NE(misshapen.find("'layers.5.self_attn.out_proj.weight': got [16, 17], expected [16, 16]"),
            std::string::npos)
      << misshapen;
}

}  // namespace
}  // namespace phasor

// layers/feed_forward: the block against linear2(act(linear1(x))) in double
// here, its workspace and weight checks.
#include "layers/feed_forward.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "engine/error.h"
#include "engine/parallel.h"
#include "tests/support/error_of.h"
#include "tests/support/max_error.h"

namespace phasor {
namespace {

constexpr double kTol = 1e-5;  // max abs error against double (seen: ~1e-6); outputs are O(1)

using kernels::Activation;

std::vector<float> Random(int64_t n, uint32_t seed, float bound) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-bound, bound);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

// PyTorch's default init scale: U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
Weights FeedForwardWeights(const std::string& prefix, int64_t d_model, int64_t d_ff) {
  Weights w("test weights");
  const float a1 = 1.0f / std::sqrt(static_cast<float>(d_model));
  const float a2 = 1.0f / std::sqrt(static_cast<float>(d_ff));
  w.Add(prefix + "linear1.weight", {d_ff, d_model}, Random(d_ff * d_model, 1, a1));
  w.Add(prefix + "linear1.bias", {d_ff}, Random(d_ff, 2, a1));
  w.Add(prefix + "linear2.weight", {d_model, d_ff}, Random(d_model * d_ff, 3, a2));
  w.Add(prefix + "linear2.bias", {d_model}, Random(d_model, 4, a2));
  return w;
}

// y = x·Wᵀ + b in double; x: [rows, in], W: [out, in].
std::vector<double> LinearRef(const std::vector<double>& x, int64_t in, const float* w,
                              const float* b, int64_t out) {
  const int64_t rows = static_cast<int64_t>(x.size()) / in;
  std::vector<double> y(static_cast<size_t>(rows * out));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t o = 0; o < out; ++o) {
      double s = b != nullptr ? b[o] : 0.0;
      for (int64_t i = 0; i < in; ++i) s += x[r * in + i] * w[o * in + i];
      y[r * out + o] = s;
    }
  }
  return y;
}

std::vector<double> Reference(const std::vector<float>& x, const Weights& w,
                              const std::string& prefix, const FeedForwardOptions& o) {
  const auto t = [&](const std::string& name) { return w.Get(prefix + name).data.data(); };
  std::vector<double> h = LinearRef(std::vector<double>(x.begin(), x.end()), o.d_model,
                                    t("linear1.weight"), t("linear1.bias"), o.d_ff);
  for (double& v : h) {
    v = o.activation == Activation::kGelu ? 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)))
                                          : std::max(v, 0.0);
  }
  return LinearRef(h, o.d_ff, t("linear2.weight"), t("linear2.bias"), o.d_model);
}

// activation, d_model, d_ff, tokens
using Case = std::tuple<Activation, int64_t, int64_t, int64_t>;

class FeedForwardTest : public ::testing::TestWithParam<Case> {};

TEST_P(FeedForwardTest, MatchesDoubleReference) {
  const auto [act, d_model, d_ff, tokens] = GetParam();
  const FeedForwardOptions options{d_model, d_ff, act};
  const Weights w = FeedForwardWeights("layers.1.", d_model, d_ff);
  const FeedForward ff(w, "layers.1.", options);
  FeedForwardWorkspace ws(tokens + 3, d_ff);
  const std::vector<float> x = Random(tokens * d_model, 5, 2.0f);
  std::vector<float> out(x.size(), NAN);
  ff.Forward(x.data(), tokens, out.data(), ws);
  EXPECT_LE(testing::MaxAbsError(out, Reference(x, w, "layers.1.", options)), kTol);

  std::vector<float> in_place = x;  // out may equal x
  ff.Forward(in_place.data(), tokens, in_place.data(), ws);
  EXPECT_EQ(in_place, out);
}

TEST_P(FeedForwardTest, IdenticalForOneAndTwoThreads) {
  const auto [act, d_model, d_ff, tokens] = GetParam();
  const Weights w = FeedForwardWeights("", d_model, d_ff);
  const FeedForward ff(w, "", {d_model, d_ff, act});
  FeedForwardWorkspace ws(tokens, d_ff);
  const std::vector<float> x = Random(tokens * d_model, 6, 2.0f);
  std::vector<float> one(x.size()), two(x.size());
  SetNumThreads(1);
  ff.Forward(x.data(), tokens, one.data(), ws);
  SetNumThreads(2);
  ff.Forward(x.data(), tokens, two.data(), ws);
  SetNumThreads(0);
  EXPECT_EQ(0, std::memcmp(one.data(), two.data(), one.size() * sizeof(float)));
}

// The gated form (SwiGLU, GeGLU) without biases, as nomic-embed's and GTE's:
// linear1's first d_ff rows the up values u, the next d_ff the gate g,
// out = linear2(u · act(g)), against that in double (silu and gelu written
// out here, not the kernels' naive twins).
std::vector<double> GatedReference(const std::vector<float>& x, const Weights& w,
                                   const FeedForwardOptions& o) {
  std::vector<double> h = LinearRef(std::vector<double>(x.begin(), x.end()), o.d_model,
                                    w.Get("linear1.weight").data.data(), nullptr, 2 * o.d_ff);
  const int64_t rows = static_cast<int64_t>(x.size()) / o.d_model;
  std::vector<double> hidden(static_cast<size_t>(rows * o.d_ff));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < o.d_ff; ++j) {
      const double u = h[r * 2 * o.d_ff + j], g = h[r * 2 * o.d_ff + o.d_ff + j];
      const double act = o.activation == Activation::kSilu
                             ? g / (1.0 + std::exp(-g))
                             : 0.5 * g * (1.0 + std::erf(g / std::sqrt(2.0)));
      hidden[r * o.d_ff + j] = u * act;
    }
  }
  return LinearRef(hidden, o.d_ff, w.Get("linear2.weight").data.data(), nullptr, o.d_model);
}

TEST(FeedForwardGatedTest, MatchesDoubleReferenceWithoutBiases) {
  for (const Activation act : {Activation::kSilu, Activation::kGelu}) {
    const int64_t d_model = 48, d_ff = 80, tokens = 70;  // two blocks of rows
    FeedForwardOptions options{d_model, d_ff, act};
    options.gated = true;
    options.bias1 = options.bias2 = false;
    Weights w("test weights");
    w.Add("linear1.weight", {2 * d_ff, d_model}, Random(2 * d_ff * d_model, 11, 0.15f));
    w.Add("linear2.weight", {d_model, d_ff}, Random(d_model * d_ff, 12, 0.12f));
    const FeedForward ff(w, "", options);
    FeedForwardWorkspace ws(tokens, options);
    const std::vector<float> x = Random(tokens * d_model, 13, 2.0f);
    std::vector<float> out(x.size(), NAN);
    ff.Forward(x.data(), tokens, out.data(), ws);
    EXPECT_LE(testing::MaxAbsError(out, GatedReference(x, w, options)), kTol) << ToString(act);
  }
}

TEST(FeedForwardGatedTest, AWorkspaceOfThePlainFormIsRefused) {
  FeedForwardOptions options{16, 24, Activation::kSilu};
  options.gated = true;
  options.bias1 = options.bias2 = false;
  Weights w("test weights");
  w.Add("linear1.weight", {48, 16}, Random(48 * 16, 1, 0.2f));
  w.Add("linear2.weight", {16, 24}, Random(16 * 24, 2, 0.2f));
  const FeedForward ff(w, "", options);
  FeedForwardWorkspace plain(4, 24);
  std::vector<float> x(4 * 16, 0.5f);
  EXPECT_THROW(ff.Forward(x.data(), 4, x.data(), plain), Error);
}

INSTANTIATE_TEST_SUITE_P(Shapes, FeedForwardTest,
                         ::testing::Values(Case{Activation::kRelu, 96, 384, 70},
                                           Case{Activation::kGelu, 96, 384, 70},
                                           Case{Activation::kRelu, 16, 40, 1},
                                           Case{Activation::kGelu, 64, 300, 513}));

TEST(FeedForwardTest, ZeroTokensIsANoOp) {
  const Weights w = FeedForwardWeights("", 8, 16);
  const FeedForward ff(w, "", {8, 16, Activation::kRelu});
  FeedForwardWorkspace ws(0, 16);  // a workspace of no tokens serves no tokens
  ff.Forward(nullptr, 0, nullptr, ws);
}

TEST(FeedForwardTest, WorkspaceTooSmallIsAnError) {
  const Weights w = FeedForwardWeights("", 8, 16);
  const FeedForward ff(w, "", {8, 16, Activation::kRelu});
  std::vector<float> x(size_t{10} * 8), out(size_t{10} * 8);
  FeedForwardWorkspace small(9, 16), other_width(10, 32);
  EXPECT_THROW(ff.Forward(x.data(), 10, out.data(), small), Error);
  EXPECT_THROW(ff.Forward(x.data(), 10, out.data(), other_width), Error);
  EXPECT_THROW(FeedForwardWorkspace(-1, 16), Error);
  EXPECT_THROW(FeedForwardWorkspace(int64_t{1} << 40, 1 << 20), Error);  // absurdly large
}

std::string ConstructionError(const Weights& w, const FeedForwardOptions& options) {
  return testing::ErrorOf([&] { FeedForward ff(w, "layers.2.", options); });
}

TEST(FeedForwardTest, MissingOrMisshapenWeightsNameTheTensor) {
  const Weights w = FeedForwardWeights("layers.2.", 8, 16);
  const std::string wrong_d_ff = ConstructionError(w, {8, 32, Activation::kRelu});
  EXPECT_NE(wrong_d_ff.find("'layers.2.linear1.weight': got [16, 8], expected [32, 8]"),
            std::string::npos)
      << wrong_d_ff;

  Weights missing("model.safetensors");
  missing.Add("layers.2.linear1.weight", {16, 8}, std::vector<float>(size_t{16} * 8));
  missing.Add("layers.2.linear1.bias", {16}, std::vector<float>(16));
  missing.Add("layers.2.linear2.weight", {8, 16}, std::vector<float>(size_t{8} * 16));
  const std::string no_bias = ConstructionError(missing, {8, 16, Activation::kRelu});
  EXPECT_NE(no_bias.find("missing tensor 'layers.2.linear2.bias'"), std::string::npos) << no_bias;
  EXPECT_NE(ConstructionError(w, {0, 16, Activation::kRelu}), "");
}

}  // namespace
}  // namespace phasor

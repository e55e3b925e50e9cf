// layers/encoder_layer: nn.TransformerEncoderLayer (eval) against the same
// computation in double written here, post-LN and pre-LN, relu and gelu.
#include "layers/encoder_layer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "engine/error.h"
#include "engine/parallel.h"
#include "tests/support/max_error.h"

namespace phasor {
namespace {

constexpr double kTol = 2e-5;  // max abs error against double (seen: ~1e-6); outputs are O(1)

using kernels::Activation;
using Vec = std::vector<double>;

std::vector<float> Random(int64_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

// Every tensor of one layer, random (fixed seeds), at PyTorch's init scale
// (attention a little sharper, norms away from the identity).
Weights LayerWeights(const std::string& p, int64_t d, int64_t d_ff) {
  Weights w("test weights");
  const float a = 1.0f / std::sqrt(static_cast<float>(d)), f = 1.0f / std::sqrt(float(d_ff));
  w.Add(p + "self_attn.in_proj_weight", {3 * d, d}, Random(3 * d * d, 1, -2 * a, 2 * a));
  w.Add(p + "self_attn.in_proj_bias", {3 * d}, Random(3 * d, 2, -0.1f, 0.1f));
  w.Add(p + "self_attn.out_proj.weight", {d, d}, Random(d * d, 3, -a, a));
  w.Add(p + "self_attn.out_proj.bias", {d}, Random(d, 4, -0.1f, 0.1f));
  w.Add(p + "linear1.weight", {d_ff, d}, Random(d_ff * d, 5, -a, a));
  w.Add(p + "linear1.bias", {d_ff}, Random(d_ff, 6, -a, a));
  w.Add(p + "linear2.weight", {d, d_ff}, Random(d * d_ff, 7, -f, f));
  w.Add(p + "linear2.bias", {d}, Random(d, 8, -f, f));
  w.Add(p + "norm1.weight", {d}, Random(d, 9, 0.5f, 1.5f));
  w.Add(p + "norm1.bias", {d}, Random(d, 10, -0.3f, 0.3f));
  w.Add(p + "norm2.weight", {d}, Random(d, 11, 0.5f, 1.5f));
  w.Add(p + "norm2.bias", {d}, Random(d, 12, -0.3f, 0.3f));
  return w;
}

// --- The reference, in double ------------------------------------------------

struct Ref {
  const Weights& w;
  std::string p;
  EncoderLayerOptions o;

  const float* T(const std::string& name) const { return w.Get(p + name).data.data(); }

  // x·Wᵀ + b for W = T(weight), b = T(bias).
  Vec Linear(const Vec& x, int64_t in, const std::string& weight, const std::string& bias,
             int64_t out) const {
    const float* wt = T(weight);
    const float* b = T(bias);
    const int64_t rows = static_cast<int64_t>(x.size()) / in;
    Vec y(rows * out);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < out; ++j) {
        double s = b[j];
        for (int64_t i = 0; i < in; ++i) s += x[r * in + i] * wt[j * in + i];
        y[r * out + j] = s;
      }
    }
    return y;
  }

  Vec Norm(const Vec& x, const std::string& name) const {
    const int64_t d = o.d_model;
    const float* g = T(name + ".weight");
    const float* b = T(name + ".bias");
    Vec y(x.size());
    for (size_t r = 0; r < x.size() / d; ++r) {
      double mean = 0.0, var = 0.0;
      for (int64_t j = 0; j < d; ++j) mean += x[r * d + j] / d;
      for (int64_t j = 0; j < d; ++j) var += (x[r * d + j] - mean) * (x[r * d + j] - mean) / d;
      for (int64_t j = 0; j < d; ++j) {
        y[r * d + j] = (x[r * d + j] - mean) / std::sqrt(var + o.layer_norm_eps) * g[j] + b[j];
      }
    }
    return y;
  }

  Vec SelfAttention(const Vec& x, int64_t seq, const std::vector<int64_t>& lengths) const {
    const int64_t d = o.d_model, dh = d / o.n_heads;
    const Vec qkv = Linear(x, d, "self_attn.in_proj_weight", "self_attn.in_proj_bias", 3 * d);
    Vec heads(x.size(), 0.0);
    for (size_t b = 0; b < lengths.size(); ++b) {
      for (int64_t h = 0; h < o.n_heads; ++h) {
        for (int64_t i = 0; i < seq; ++i) {
          const int64_t n = lengths[b];
          Vec s(n);
          double max = -INFINITY, sum = 0.0;
          for (int64_t j = 0; j < n; ++j) {
            s[j] = 0.0;
            for (int64_t c = 0; c < dh; ++c) {
              s[j] += qkv[(b * seq + i) * 3 * d + h * dh + c] *
                      qkv[(b * seq + j) * 3 * d + d + h * dh + c];
            }
            s[j] /= std::sqrt(static_cast<double>(dh));
            max = std::max(max, s[j]);
          }
          for (int64_t j = 0; j < n; ++j) sum += (s[j] = std::exp(s[j] - max));
          for (int64_t j = 0; j < n; ++j) {
            for (int64_t c = 0; c < dh; ++c) {
              heads[(b * seq + i) * d + h * dh + c] +=
                  s[j] / sum * qkv[(b * seq + j) * 3 * d + 2 * d + h * dh + c];
            }
          }
        }
      }
    }
    return Linear(heads, d, "self_attn.out_proj.weight", "self_attn.out_proj.bias", d);
  }

  Vec FeedForward(const Vec& x) const {
    Vec h = Linear(x, o.d_model, "linear1.weight", "linear1.bias", o.d_ff);
    for (double& v : h) {
      v = o.activation == Activation::kGelu ? 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)))
                                            : std::max(v, 0.0);
    }
    return Linear(h, o.d_ff, "linear2.weight", "linear2.bias", o.d_model);
  }

  static Vec Add(const Vec& a, const Vec& b) {
    Vec y(a.size());
    for (size_t i = 0; i < a.size(); ++i) y[i] = a[i] + b[i];
    return y;
  }

  Vec Forward(const std::vector<float>& input, int64_t seq,
              const std::vector<int64_t>& lengths) const {
    Vec x(input.begin(), input.end());
    if (o.norm_first) {
      x = Add(x, SelfAttention(Norm(x, "norm1"), seq, lengths));
      return Add(x, FeedForward(Norm(x, "norm2")));
    }
    x = Norm(Add(x, SelfAttention(x, seq, lengths)), "norm1");
    return Norm(Add(x, FeedForward(x)), "norm2");
  }
};

// --- Tests --------------------------------------------------------------------

// norm_first, activation, d_model, n_heads, d_ff, seq, lengths
using Case = std::tuple<bool, Activation, int64_t, int64_t, int64_t, int64_t, std::vector<int64_t>>;

EncoderLayerOptions OptionsOf(const Case& c) {
  const auto& [norm_first, act, d_model, n_heads, d_ff, seq, lengths] = c;
  EncoderLayerOptions o;
  o.d_model = d_model;
  o.n_heads = n_heads;
  o.d_ff = d_ff;
  o.activation = act;
  o.norm_first = norm_first;
  o.layer_norm_eps = 1e-5f;
  return o;
}

class EncoderLayerTest : public ::testing::TestWithParam<Case> {};

TEST_P(EncoderLayerTest, MatchesDoubleReference) {
  const EncoderLayerOptions o = OptionsOf(GetParam());
  const int64_t seq = std::get<5>(GetParam());
  const std::vector<int64_t>& lengths = std::get<6>(GetParam());
  const int64_t batch = static_cast<int64_t>(lengths.size()), tokens = batch * seq;
  const Weights w = LayerWeights("layers.0.", o.d_model, o.d_ff);
  const EncoderLayer layer(w, "layers.0.", o);
  EncoderLayerWorkspace ws(tokens, o);
  const std::vector<float> x = Random(tokens * o.d_model, 13, -1.5f, 1.5f);
  std::vector<float> out(x.size(), NAN);
  layer.Forward(x.data(), batch, seq, lengths.data(), out.data(), ws);
  // Every row, padded ones included (they are computed the same way).
  EXPECT_LE(testing::MaxAbsError(out, Ref{w, "layers.0.", o}.Forward(x, seq, lengths)), kTol);

  std::vector<float> in_place = x;  // out may equal x: a stack runs in place
  layer.Forward(in_place.data(), batch, seq, lengths.data(), in_place.data(), ws);
  EXPECT_EQ(in_place, out);
}

TEST_P(EncoderLayerTest, IdenticalForOneAndTwoThreads) {
  const EncoderLayerOptions o = OptionsOf(GetParam());
  const int64_t seq = std::get<5>(GetParam());
  const std::vector<int64_t>& lengths = std::get<6>(GetParam());
  const int64_t batch = static_cast<int64_t>(lengths.size()), tokens = batch * seq;
  const Weights w = LayerWeights("", o.d_model, o.d_ff);
  const EncoderLayer layer(w, "", o);
  EncoderLayerWorkspace ws(tokens, o, 2);
  const std::vector<float> x = Random(tokens * o.d_model, 14, -1.5f, 1.5f);
  std::vector<float> one(x.size()), two(x.size());
  SetNumThreads(1);
  layer.Forward(x.data(), batch, seq, lengths.data(), one.data(), ws);
  SetNumThreads(2);
  layer.Forward(x.data(), batch, seq, lengths.data(), two.data(), ws);
  SetNumThreads(0);
  EXPECT_EQ(0, std::memcmp(one.data(), two.data(), one.size() * sizeof(float)));
}

INSTANTIATE_TEST_SUITE_P(
    Configs, EncoderLayerTest,
    ::testing::Values(Case{false, Activation::kRelu, 96, 6, 384, 70, {70, 41}},
                      Case{true, Activation::kRelu, 96, 6, 384, 70, {70, 41}},
                      Case{false, Activation::kGelu, 64, 4, 256, 130, {130, 0, 7}},
                      Case{true, Activation::kGelu, 64, 4, 256, 130, {130, 0, 7}},
                      Case{false, Activation::kGelu, 32, 2, 64, 1, {1}},
                      Case{true, Activation::kRelu, 32, 2, 64, 1, {1}}));

TEST(EncoderLayerTest, OneWorkspaceServesAStackOfLayers) {
  EncoderLayerOptions o;
  o.d_model = 32;
  o.n_heads = 4;
  o.d_ff = 48;
  Weights w("test weights");
  for (const char* p : {"layers.0.", "layers.1."}) {
    Weights one = LayerWeights(p, o.d_model, o.d_ff);
    for (const std::string& name : one.Names()) {
      const Tensor& t = one.Get(name);
      w.Add(name, t.shape, std::vector<float>(t.data.begin(), t.data.end()));
    }
  }
  const EncoderLayer l0(w, "layers.0.", o), l1(w, "layers.1.", o);
  const std::vector<int64_t> lengths = {20, 13};
  EncoderLayerWorkspace ws(40, o);
  const std::vector<float> x = Random(40 * o.d_model, 15, -1.0f, 1.0f);
  std::vector<float> stack = x;
  l0.Forward(stack.data(), 2, 20, lengths.data(), stack.data(), ws);
  l1.Forward(stack.data(), 2, 20, lengths.data(), stack.data(), ws);
  const Vec ref = Ref{w, "layers.1.", o}.Forward(
      [&] {
        const Vec v = Ref{w, "layers.0.", o}.Forward(x, 20, lengths);
        return std::vector<float>(v.begin(), v.end());
      }(),
      20, lengths);
  EXPECT_LE(testing::MaxAbsError(stack, ref), kTol);
  EXPECT_TRUE(w.UnusedNames().empty());
}

TEST(EncoderLayerTest, MismatchedWorkspaceIsAnError) {
  EncoderLayerOptions o;
  o.d_model = 16;
  o.n_heads = 2;
  o.d_ff = 32;
  const Weights w = LayerWeights("", 16, 32);
  const EncoderLayer layer(w, "", o);
  std::vector<float> x(size_t{10} * 16), out(size_t{10} * 16);
  EncoderLayerWorkspace small(9, o);
  EXPECT_THROW(layer.Forward(x.data(), 1, 10, nullptr, out.data(), small), Error);
  EncoderLayerOptions wider = o;
  wider.d_model = 32;
  EncoderLayerWorkspace other(10, wider);
  EXPECT_THROW(layer.Forward(x.data(), 1, 10, nullptr, out.data(), other), Error);
  EXPECT_THROW(layer.Forward(x.data(), -1, 10, nullptr, out.data(), small), Error);
}

TEST(EncoderLayerTest, MissingTensorsAreNamed) {
  EncoderLayerOptions o;
  o.d_model = 16;
  o.n_heads = 2;
  o.d_ff = 32;
  const Weights full = LayerWeights("layers.3.", 16, 32);
  for (const std::string& name : full.Names()) {
    Weights w("model.safetensors");
    for (const std::string& other : full.Names()) {
      if (other == name) continue;
      const Tensor& t = full.Get(other);
      w.Add(other, t.shape, std::vector<float>(t.data.begin(), t.data.end()));
    }
    try {
      EncoderLayer layer(w, "layers.3.", o);
      ADD_FAILURE() << "no error without " << name;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("'" + name + "'"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace phasor

// layers/layer_norm: the layer against LayerNorm computed in double here, and
// its weight checks.
#include "layers/layer_norm.h"

#include <gtest/gtest.h>

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

std::vector<float> Random(int64_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

Weights NormWeights(const std::string& prefix, int64_t d_model) {
  Weights w("test weights");
  w.Add(prefix + "weight", {d_model}, Random(d_model, 1, 0.5f, 1.5f));
  w.Add(prefix + "bias", {d_model}, Random(d_model, 2, -0.5f, 0.5f));
  return w;
}

// LayerNorm of each row of v (already summed), in double, as PyTorch defines it.
std::vector<double> Reference(const std::vector<double>& v, int64_t d, const float* gamma,
                              const float* beta, double eps) {
  std::vector<double> out(v.size());
  for (size_t r = 0; r < v.size() / d; ++r) {
    double mean = 0.0, var = 0.0;
    for (int64_t j = 0; j < d; ++j) mean += v[r * d + j] / d;
    for (int64_t j = 0; j < d; ++j) var += (v[r * d + j] - mean) * (v[r * d + j] - mean) / d;
    for (int64_t j = 0; j < d; ++j) {
      out[r * d + j] = (v[r * d + j] - mean) / std::sqrt(var + eps) * gamma[j] + beta[j];
    }
  }
  return out;
}

class LayerNormLayerTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(LayerNormLayerTest, ForwardMatchesDoubleReference) {
  const int64_t d = GetParam(), tokens = 67;
  const Weights w = NormWeights("norm.", d);
  const LayerNorm norm(w, "norm.", {d, 1e-5f});
  std::vector<float> x = Random(tokens * d, 3, -4.0f, 4.0f);
  for (int64_t j = 0; j < d; ++j) x[j] += 500.0f;  // a row far from zero
  std::vector<float> out(x.size());
  norm.Forward(x.data(), tokens, out.data());
  const std::vector<double> ref =
      Reference(std::vector<double>(x.begin(), x.end()), d, w.Get("norm.weight").data.data(),
                w.Get("norm.bias").data.data(), 1e-5);
  EXPECT_LE(testing::MaxAbsError(out, ref), kTol);
}

TEST_P(LayerNormLayerTest, ForwardAddMatchesDoubleReferenceAndRunsInPlace) {
  const int64_t d = GetParam(), tokens = 40;
  const Weights w = NormWeights("layers.3.norm2.", d);
  const LayerNorm norm(w, "layers.3.norm2.", {d, 1e-6f});
  const std::vector<float> x = Random(tokens * d, 4, -2.0f, 2.0f);
  const std::vector<float> r = Random(tokens * d, 5, -2.0f, 2.0f);
  std::vector<double> sum(x.size());
  for (size_t i = 0; i < x.size(); ++i) sum[i] = x[i] + r[i];  // rounded to float, as PyTorch
  const std::vector<double> ref = Reference(sum, d, w.Get("layers.3.norm2.weight").data.data(),
                                            w.Get("layers.3.norm2.bias").data.data(), 1e-6);
  std::vector<float> out(x.size());
  norm.ForwardAdd(x.data(), r.data(), tokens, out.data());
  EXPECT_LE(testing::MaxAbsError(out, ref), kTol);
  std::vector<float> in_place = x;
  norm.ForwardAdd(in_place.data(), r.data(), tokens, in_place.data());
  EXPECT_EQ(in_place, out);
}

TEST_P(LayerNormLayerTest, IdenticalForOneAndTwoThreads) {
  const int64_t d = GetParam(), tokens = 301;
  const Weights w = NormWeights("norm.", d);
  const LayerNorm norm(w, "norm.", {d, 1e-5f});
  const std::vector<float> x = Random(tokens * d, 6, -3.0f, 3.0f);
  std::vector<float> one(x.size()), two(x.size());
  SetNumThreads(1);
  norm.Forward(x.data(), tokens, one.data());
  SetNumThreads(2);
  norm.Forward(x.data(), tokens, two.data());
  SetNumThreads(0);
  EXPECT_EQ(0, std::memcmp(one.data(), two.data(), one.size() * sizeof(float)));
}

INSTANTIATE_TEST_SUITE_P(Widths, LayerNormLayerTest, ::testing::Values(1, 8, 96, 512));

// The message of the Error that constructing a LayerNorm throws.
std::string ConstructionError(const Weights& w, const std::string& prefix, int64_t d) {
  return testing::ErrorOf([&] { LayerNorm norm(w, prefix, {d, 1e-5f}); });
}

TEST(LayerNormLayerTest, MissingOrMisshapenWeightsNameTheTensor) {
  Weights missing_bias("model.safetensors");
  missing_bias.Add("norm.weight", {16}, std::vector<float>(16, 1.0f));
  EXPECT_NE(ConstructionError(missing_bias, "norm.", 16).find("'norm.bias'"), std::string::npos)
      << ConstructionError(missing_bias, "norm.", 16);

  const Weights w = NormWeights("layers.0.norm1.", 16);
  const std::string wrong_size = ConstructionError(w, "layers.0.norm1.", 17);
  EXPECT_NE(wrong_size.find("'layers.0.norm1.weight'"), std::string::npos) << wrong_size;
  EXPECT_NE(wrong_size.find("got [16], expected [17]"), std::string::npos) << wrong_size;
  EXPECT_NE(ConstructionError(w, "layers.0.norm1.", 0), "");
}

}  // namespace
}  // namespace phasor

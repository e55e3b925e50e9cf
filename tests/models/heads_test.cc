// A head in phasor's own format: config.json's "head" and tensors head.{i}.*
// load with the model; stage logits and pooler are the head's products over
// each sequence's first final row (or their mean), computed in double here
// from the model's own final rows (the encoder's parity is tested elsewhere).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/safetensors.h"
#include "models/config.h"
#include "models/phasor.h"
#include "models/toy.h"
#include "tests/support/kernel_test_util.h"

namespace phasor {
namespace {

// n values uniform in [-scale, scale].
std::vector<float> Random(int64_t n, uint32_t seed, float scale) {
  return testing::Random(n, seed, -scale, scale);
}

TEST(OwnFormatHeadTest, LogitsAndPoolerAreTheHeadOnTheFirstRow) {
  ModelConfig c = ToyConfig();
  const int64_t d = c.d_model, labels = 3;
  c.head = {{d, HeadActivation::kTanh}, {labels, HeadActivation::kIdentity}};
  c.pooler_products = 1;
  Weights w = ToyWeights(c);
  w.Add("head.0.weight", {d, d}, Random(d * d, 1, 1.0f / std::sqrt(float(d))));
  w.Add("head.0.bias", {d}, Random(d, 2, 0.1f));
  w.Add("head.1.weight", {labels, d}, Random(labels * d, 3, 1.0f / std::sqrt(float(d))));
  w.Add("head.1.bias", {labels}, Random(labels, 4, 0.1f));
  const std::string dir = ::testing::TempDir() + "own_head";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/config.json") << ConfigToJson(c);
  SaveSafetensors(dir + "/model.safetensors", w);

  const Model model = Model::Load(dir);
  EXPECT_NE(model.config_json().find("\"head\""), std::string::npos);
  const std::vector<int32_t> ids = {5, 9, 2, 7, 11, 4};  // [2, 3]
  EncodeOptions o;
  std::vector<float> rows(ids.size() * d);  // [2, 3, d]
  model.Encode(ids.data(), 2, 3, rows.data(), o);
  o.head = HeadOutput::kLogits;
  ASSERT_EQ(model.output_dim(o), labels);
  std::vector<float> logits(2 * labels);
  model.Encode(ids.data(), 2, 3, logits.data(), o);
  o.head = HeadOutput::kPooler;
  ASSERT_EQ(model.output_dim(o), d);
  std::vector<float> pooler(2 * d);
  model.Encode(ids.data(), 2, 3, pooler.data(), o);
  for (int64_t b = 0; b < 2; ++b) {
    const float* x = rows.data() + b * 3 * d;  // the first row of sequence b
    std::vector<double> p(d);
    for (int64_t o1 = 0; o1 < d; ++o1) {
      double s = w.Floats("head.0.bias")[o1];
      for (int64_t k = 0; k < d; ++k) s += double(x[k]) * w.Floats("head.0.weight")[o1 * d + k];
      p[o1] = std::tanh(s);
      EXPECT_NEAR(pooler[b * d + o1], p[o1], 1e-5) << b << ", " << o1;
    }
    for (int64_t l = 0; l < labels; ++l) {
      double s = w.Floats("head.1.bias")[l];
      for (int64_t k = 0; k < d; ++k) s += p[k] * w.Floats("head.1.weight")[l * d + k];
      EXPECT_NEAR(logits[b * labels + l], s, 1e-5) << b << ", " << l;
    }
  }
  std::filesystem::remove_all(dir);
}

// "pooling": "mean": the head reads the mean of each sequence's real rows (a
// ragged batch: padding left out), through a bias-free product, gelu and a
// LayerNorm without bias, then the classifier; the config round-trips.
TEST(OwnFormatHeadTest, MeanPoolingFeedsABiasFreeProductAndItsNorm) {
  ModelConfig c = ToyConfig();
  const int64_t d = c.d_model, labels = 2;
  const double eps = 1e-6;
  c.head = {{d, HeadActivation::kGelu, false, HeadNorm{eps, false}},
            {labels, HeadActivation::kIdentity}};
  c.head_pooling = Pooling::kMean;
  Weights w = ToyWeights(c);
  w.Add("head.0.weight", {d, d}, Random(d * d, 5, 1.0f / std::sqrt(float(d))));
  std::vector<float> gamma = Random(d, 6, 0.2f);
  for (float& g : gamma) g += 1.0f;
  w.Add("head.0.norm.weight", {d}, std::move(gamma));
  w.Add("head.1.weight", {labels, d}, Random(labels * d, 7, 1.0f / std::sqrt(float(d))));
  w.Add("head.1.bias", {labels}, Random(labels, 8, 0.1f));
  const std::string dir = ::testing::TempDir() + "own_mean_head";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/config.json") << ConfigToJson(c);
  SaveSafetensors(dir + "/model.safetensors", w);

  const Model model = Model::Load(dir);
  EXPECT_NE(model.config_json().find("\"pooling\": \"mean\""), std::string::npos);
  const std::vector<int32_t> ids = {5, 9, 2, 7, 11, 4, 0, 0};  // [2, 4], line 1 of 2 tokens
  const std::vector<int64_t> lengths = {4, 2};
  EncodeOptions o;
  o.lengths = lengths.data();
  std::vector<float> rows(ids.size() * d);  // [2, 4, d]
  model.Encode(ids.data(), 2, 4, rows.data(), o);
  o.head = HeadOutput::kLogits;
  std::vector<float> logits(2 * labels);
  model.Encode(ids.data(), 2, 4, logits.data(), o);
  for (int64_t b = 0; b < 2; ++b) {
    std::vector<double> mean(d, 0.0), h(d);
    for (int64_t j = 0; j < lengths[b]; ++j) {
      for (int64_t k = 0; k < d; ++k) mean[k] += rows[(b * 4 + j) * d + k] / double(lengths[b]);
    }
    double mu = 0, var = 0;
    for (int64_t o1 = 0; o1 < d; ++o1) {
      double s = 0;
      for (int64_t k = 0; k < d; ++k) s += mean[k] * w.Floats("head.0.weight")[o1 * d + k];
      h[o1] = 0.5 * s * (1 + std::erf(s / std::sqrt(2.0)));
      mu += h[o1] / d;
    }
    for (int64_t k = 0; k < d; ++k) var += (h[k] - mu) * (h[k] - mu) / d;
    for (int64_t k = 0; k < d; ++k) {
      h[k] = (h[k] - mu) / std::sqrt(var + eps) * w.Floats("head.0.norm.weight")[k];
    }
    for (int64_t l = 0; l < labels; ++l) {
      double s = w.Floats("head.1.bias")[l];
      for (int64_t k = 0; k < d; ++k) s += h[k] * w.Floats("head.1.weight")[l * d + k];
      EXPECT_NEAR(logits[b * labels + l], s, 1e-5) << b << ", " << l;
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace phasor

// layers/dense_head: the products, activations and norms against the same
// chain computed in double here, for every number of products run; its
// weight checks.
#include "layers/dense_head.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/error.h"
#include "tests/support/kernel_test_util.h"

namespace phasor {
namespace {

constexpr double kTol = 1e-5;  // max abs error against double; values are O(1)

// n values uniform in [-scale, scale].
std::vector<float> Random(int64_t n, uint32_t seed, float scale) {
  return testing::Random(n, seed, -scale, scale);
}

// A head of in -> 48 (tanh) -> 40 (relu) -> 24 (gelu, no bias, a LayerNorm
// without bias) -> 24 (gelu_tanh, a LayerNorm) -> 16 (silu) -> 3 (identity):
// widths above and below in, so that the scratch is the widest product's.
const std::vector<DenseProduct> kProducts = {
    {48, HeadActivation::kTanh},
    {40, HeadActivation::kRelu},
    {24, HeadActivation::kGelu, false, HeadNorm{1e-5, false}},
    {24, HeadActivation::kGeluTanh, true, HeadNorm{1e-3, true}},
    {16, HeadActivation::kSilu},
    {3, HeadActivation::kIdentity}};

Weights HeadWeights(int64_t in) {
  Weights w("test weights");
  int64_t width = in;
  for (size_t i = 0; i < kProducts.size(); ++i) {
    const std::string p = "head." + std::to_string(i) + ".";
    const int64_t out = kProducts[i].out;
    w.Add(p + "weight", {out, width},
          Random(out * width, 10 + static_cast<uint32_t>(i), 1.0f / std::sqrt(float(width))));
    const auto seed = static_cast<uint32_t>(i);
    if (kProducts[i].bias) w.Add(p + "bias", {out}, Random(out, 20 + seed, 0.1f));
    if (kProducts[i].norm) {
      std::vector<float> gamma = Random(out, 30 + seed, 0.2f);
      for (float& g : gamma) g += 1.0f;
      w.Add(p + "norm.weight", {out}, std::move(gamma));
      if (kProducts[i].norm->bias) w.Add(p + "norm.bias", {out}, Random(out, 40 + seed, 0.1f));
    }
    width = out;
  }
  return w;
}

// act in double (the erf and tanh forms of GELU, SiLU as x·sigmoid(x)).
double Act(HeadActivation act, double s) {
  switch (act) {
    case HeadActivation::kTanh:
      return std::tanh(s);
    case HeadActivation::kRelu:
      return std::max(s, 0.0);
    case HeadActivation::kGelu:
      return 0.5 * s * (1 + std::erf(s / std::sqrt(2.0)));
    case HeadActivation::kGeluTanh:
      return 0.5 * s * (1 + std::tanh(std::sqrt(2 / M_PI) * (s + 0.044715 * s * s * s)));
    case HeadActivation::kSilu:
      return s / (1 + std::exp(-s));
    case HeadActivation::kIdentity:
      break;
  }
  return s;
}

// Row r of h ([rows, out]) through product p's norm, if any, in double.
void Norm(const Weights& w, const std::string& p, const DenseProduct& product, double* row) {
  if (!product.norm) return;
  const int64_t out = product.out;
  double mean = 0, var = 0;
  for (int64_t o = 0; o < out; ++o) mean += row[o] / out;
  for (int64_t o = 0; o < out; ++o) var += (row[o] - mean) * (row[o] - mean) / out;
  const float* g = w.Floats(p + "norm.weight");
  const float* b = product.norm->bias ? w.Floats(p + "norm.bias") : nullptr;
  for (int64_t o = 0; o < out; ++o) {
    row[o] = (row[o] - mean) / std::sqrt(var + product.norm->eps) * g[o] + (b ? b[o] : 0.0);
  }
}

// The first n products over each row of x, in double.
std::vector<double> Reference(const Weights& w, const std::vector<float>& x, int64_t rows,
                              int64_t in, int64_t n) {
  std::vector<double> h(x.begin(), x.end());
  int64_t width = in;
  for (int64_t i = 0; i < n; ++i) {
    const std::string p = "head." + std::to_string(i) + ".";
    const int64_t out = kProducts[static_cast<size_t>(i)].out;
    const float* wt = w.Floats(p + "weight");  // [out, width]
    const DenseProduct& product = kProducts[static_cast<size_t>(i)];
    const float* b = product.bias ? w.Floats(p + "bias") : nullptr;  // [out] or none
    std::vector<double> next(static_cast<size_t>(rows * out));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t o = 0; o < out; ++o) {
        double s = b ? b[o] : 0.0;
        for (int64_t k = 0; k < width; ++k) s += h[r * width + k] * wt[o * width + k];
        next[r * out + o] = Act(product.activation, s);
      }
      Norm(w, p, product, next.data() + r * out);
    }
    h = std::move(next);
    width = out;
  }
  return h;
}

TEST(DenseHeadTest, EveryPrefixOfProductsMatchesDouble) {
  const int64_t in = 32, rows = 7;
  const Weights w = HeadWeights(in);
  const DenseHead head(w, "head.", in, kProducts);
  EXPECT_EQ(head.size(), 6);
  EXPECT_EQ(head.max_width(), 48);
  const std::vector<float> x = Random(rows * in, 1, 1.0f);  // [rows, in]
  for (int64_t n = 1; n <= head.size(); ++n) {
    ASSERT_EQ(head.out(n), kProducts[static_cast<size_t>(n - 1)].out);
    std::vector<float> out(static_cast<size_t>(rows * head.max_width()));
    std::vector<float> scratch(static_cast<size_t>(rows * head.max_width()));
    head.Forward(x.data(), rows, n, out.data(), scratch.data());
    const std::vector<double> want = Reference(w, x, rows, in, n);
    double worst = 0;
    for (size_t k = 0; k < want.size(); ++k) worst = std::max(worst, std::fabs(out[k] - want[k]));
    EXPECT_LE(worst, kTol) << n << " products";
  }
}

TEST(DenseHeadTest, AMisshapenTensorIsNamed) {
  Weights w = HeadWeights(32);
  try {
    DenseHead(w, "head.", 24, kProducts);
    ADD_FAILURE() << "built";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("head.0.weight"), std::string::npos) << e.what();
  }
  // A norm's tensors: required, shapes checked, named.
  Weights without_norm = HeadWeights(32);
  without_norm.Take("head.2.norm.weight");
  try {
    DenseHead(without_norm, "head.", 32, kProducts);
    ADD_FAILURE() << "built without head.2.norm.weight";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("head.2.norm.weight"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ParseHeadActivation("tanh"), HeadActivation::kTanh);
  EXPECT_STREQ(ToString(HeadActivation::kRelu), "relu");
  for (HeadActivation a :
       {HeadActivation::kGelu, HeadActivation::kGeluTanh, HeadActivation::kSilu}) {
    EXPECT_EQ(ParseHeadActivation(ToString(a)), a);
  }
  EXPECT_THROW(ParseHeadActivation("swish"), Error);
}

// Each row's output is that row's alone: the same bits for a row run by
// itself as inside a batch.
TEST(DenseHeadTest, ARowAloneIsTheSameBits) {
  const int64_t in = 32, rows = 9;
  const Weights w = HeadWeights(in);
  const DenseHead head(w, "head.", in, kProducts);
  const std::vector<float> x = Random(rows * in, 2, 1.0f);  // [rows, in]
  const auto width = static_cast<size_t>(head.max_width());
  std::vector<float> out(rows * width), scratch(rows * width), one(width), one_scratch(width);
  head.Forward(x.data(), rows, head.size(), out.data(), scratch.data());
  for (int64_t r = 0; r < rows; ++r) {
    head.Forward(x.data() + r * in, 1, head.size(), one.data(), one_scratch.data());
    EXPECT_TRUE(std::equal(one.begin(), one.begin() + 3, out.begin() + r * 3)) << r;
  }
}

}  // namespace
}  // namespace phasor

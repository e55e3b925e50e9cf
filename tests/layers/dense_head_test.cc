// layers/dense_head: the products and activations against the same chain
// computed in double here, for every number of products run; its weight
// checks.
#include "layers/dense_head.h"

#include <gtest/gtest.h>

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

// A head of in -> 48 (tanh) -> 40 (relu) -> 3 (identity): widths above and
// below in, so that the scratch is the widest product's.
const std::vector<DenseProduct> kProducts = {
    {48, HeadActivation::kTanh}, {40, HeadActivation::kRelu}, {3, HeadActivation::kIdentity}};

Weights HeadWeights(int64_t in) {
  Weights w("test weights");
  int64_t width = in;
  for (size_t i = 0; i < kProducts.size(); ++i) {
    const std::string p = "head." + std::to_string(i) + ".";
    const int64_t out = kProducts[i].out;
    w.Add(p + "weight", {out, width},
          Random(out * width, 10 + static_cast<uint32_t>(i), 1.0f / std::sqrt(float(width))));
    w.Add(p + "bias", {out}, Random(out, 20 + static_cast<uint32_t>(i), 0.1f));
    width = out;
  }
  return w;
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
    const float* b = w.Floats(p + "bias");     // [out]
    std::vector<double> next(static_cast<size_t>(rows * out));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t o = 0; o < out; ++o) {
        double s = b[o];
        for (int64_t k = 0; k < width; ++k) s += h[r * width + k] * wt[o * width + k];
        switch (kProducts[static_cast<size_t>(i)].activation) {
          case HeadActivation::kTanh:
            s = std::tanh(s);
            break;
          case HeadActivation::kRelu:
            s = std::max(s, 0.0);
            break;
          case HeadActivation::kIdentity:
            break;
        }
        next[r * out + o] = s;
      }
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
  EXPECT_EQ(head.size(), 3);
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
  EXPECT_EQ(ParseHeadActivation("tanh"), HeadActivation::kTanh);
  EXPECT_STREQ(ToString(HeadActivation::kRelu), "relu");
  EXPECT_THROW(ParseHeadActivation("gelu"), Error);
}

}  // namespace
}  // namespace phasor

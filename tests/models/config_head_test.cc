// models/config_head: config.json's "head" (products over one row per
// sequence, their biases and norms, the head's pooling) read, written back to
// the same text, and refused when out of range, naming the key.
#include "models/config_head.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/error.h"
#include "models/config.h"

namespace phasor {
namespace {

const std::string kSizes =
    R"({"vocab_size": 1000, "d_model": 256, "n_heads": 4, "n_layers": 2, "d_ff": 512, "head": )";

TEST(ConfigHead, RoundTripsAndIsChecked) {
  const std::string text =
      kSizes + R"({"pooler": 1, "products": [{"out": 256, "activation": "tanh"},
                                             {"out": 3, "activation": "identity"}]}})";
  const ModelConfig c = ParseConfig(text, "config.json");
  ASSERT_EQ(c.head.size(), 2u);
  EXPECT_EQ(c.pooler_products, 1);
  EXPECT_EQ(c.head_pooling, Pooling::kCls);
  EXPECT_EQ(c.head[0].out, 256);
  EXPECT_EQ(c.head[0].activation, HeadActivation::kTanh);
  EXPECT_TRUE(c.head[0].bias);
  EXPECT_FALSE(c.head[0].norm);
  EXPECT_EQ(c.head[1].out, 3);
  EXPECT_EQ(c.head[1].activation, HeadActivation::kIdentity);
  const std::string json = ConfigToJson(c);
  const ModelConfig back = ParseConfig(json, "config.json");
  EXPECT_EQ(ConfigToJson(back), json);
  ASSERT_EQ(back.head.size(), 2u);
  EXPECT_EQ(back.head[1].out, 3);
  EXPECT_EQ(back.pooler_products, 1);
}

// ModernBERT's head: mean pooling, a product without a bias followed by gelu
// and a LayerNorm without a bias, then the classifier.
TEST(ConfigHead, MeanPoolingBiasFreeProductsAndNormsRoundTrip) {
  const std::string text = kSizes + R"({"pooling": "mean", "products": [
      {"out": 256, "activation": "gelu", "bias": false, "norm": {"eps": 1e-6, "bias": false}},
      {"out": 2}]}})";
  const ModelConfig c = ParseConfig(text, "config.json");
  EXPECT_EQ(c.head_pooling, Pooling::kMean);
  ASSERT_EQ(c.head.size(), 2u);
  EXPECT_EQ(c.head[0].activation, HeadActivation::kGelu);
  EXPECT_FALSE(c.head[0].bias);
  ASSERT_TRUE(c.head[0].norm);
  EXPECT_EQ(c.head[0].norm->eps, 1e-6);
  EXPECT_FALSE(c.head[0].norm->bias);
  EXPECT_TRUE(c.head[1].bias);
  EXPECT_FALSE(c.head[1].norm);
  const std::string json = ConfigToJson(c);
  EXPECT_NE(json.find("\"pooling\": \"mean\""), std::string::npos) << json;
  const ModelConfig back = ParseConfig(json, "config.json");
  EXPECT_EQ(ConfigToJson(back), json);
  EXPECT_EQ(back.head_pooling, Pooling::kMean);
  ASSERT_TRUE(back.head[0].norm);
  EXPECT_EQ(back.head[0].norm->eps, 1e-6);
  EXPECT_FALSE(back.head[0].bias);
}

TEST(ConfigHead, WhatIsOutOfRangeIsNamed) {
  const auto expect = [](const std::string& head, const std::string& fragment) {
    try {
      ParseConfig(kSizes + head + "}", "config.json");
      ADD_FAILURE() << "parsed " << head;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect(R"({"products": [{"out": 3, "activation": "swish"}]})",
         "config.json: key 'head.products[0].activation': unknown head activation 'swish'");
  expect(R"({"products": [{"out": 0}]})", "key 'head.products[0].out': 0 is out of range");
  expect(R"({"pooler": 2, "products": [{"out": 3}]})", "key 'head.pooler': 2 is out of range");
  expect(R"({"classes": 3})", "key 'head.classes': unknown key");
  expect(R"({"pooling": "max", "products": [{"out": 3}]})",
         "key 'head.pooling': 'max' is not a head's pooling, expected cls or mean");
  expect(R"({"pooling": "average"})", "key 'head.pooling': unknown pooling 'average'");
  expect(R"({"products": [{"out": 3, "bias": 1}]})",
         "key 'head.products[0].bias': expected true or false");
  expect(R"({"products": [{"out": 3, "norm": {"eps": -1}}]})",
         "key 'head.products[0].norm.eps': expected a finite number >= 0");
  expect(R"({"products": [{"out": 3, "norm": {"epsilon": 1}}]})",
         "key 'head.products[0].norm.epsilon': unknown key, expected eps or bias");
  expect(R"({"products": [{"activation": "tanh"}]})", "key 'head.products[0].out': missing");
}

}  // namespace
}  // namespace phasor

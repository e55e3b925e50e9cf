// Tests of models/config's positional and head keys: rotary positions with
// every scaling, and a head's products; each read, written back and refused
// naming the key.
#include <gtest/gtest.h>

#include <string>

#include "engine/error.h"
#include "models/config.h"
#include "tests/support/error_of.h"

namespace {

using phasor::Error;
using phasor::ModelConfig;
using phasor::PeMode;
using phasor::PositionalKind;

// A head (products over each sequence's first row): read, written back, refused
// when out of range, naming the key.
TEST(ConfigHead, RoundTripsAndIsChecked) {
  const std::string text =
      R"({"vocab_size": 1000, "d_model": 256, "n_heads": 4, "n_layers": 2, "d_ff": 512,
          "head": {"pooler": 1, "products": [{"out": 256, "activation": "tanh"},
                                             {"out": 3, "activation": "identity"}]}})";
  const ModelConfig c = phasor::ParseConfig(text, "config.json");
  ASSERT_EQ(c.head.size(), 2u);
  EXPECT_EQ(c.pooler_products, 1);
  EXPECT_EQ(c.head[0].out, 256);
  EXPECT_EQ(c.head[0].activation, phasor::HeadActivation::kTanh);
  EXPECT_EQ(c.head[1].out, 3);
  EXPECT_EQ(c.head[1].activation, phasor::HeadActivation::kIdentity);
  const std::string json = phasor::ConfigToJson(c);
  const ModelConfig back = phasor::ParseConfig(json, "config.json");
  EXPECT_EQ(phasor::ConfigToJson(back), json);
  ASSERT_EQ(back.head.size(), 2u);
  EXPECT_EQ(back.head[1].out, 3);
  EXPECT_EQ(back.pooler_products, 1);
  const auto expect = [](const std::string& head, const std::string& fragment) {
    const std::string bad =
        R"({"vocab_size": 1000, "d_model": 256, "n_heads": 4, "n_layers": 2, "d_ff": 512, "head": )" +
        head + "}";
    try {
      phasor::ParseConfig(bad, "config.json");
      ADD_FAILURE() << "parsed " << head;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect(R"({"products": [{"out": 3, "activation": "gelu"}]})",
         "key 'head.products[0].activation': unknown head activation 'gelu'");
  expect(R"({"products": [{"out": 0}]})", "key 'head.products[0].out': 0 is out of range");
  expect(R"({"pooler": 2, "products": [{"out": 3}]})", "key 'head.pooler': 2 is out of range");
  expect(R"({"classes": 3})", "key 'head.classes': unknown key");
}

TEST(ConfigRope, DefaultsAndEveryKey) {
  ModelConfig c = phasor::ParseConfig(
      R"({"vocab_size": 10, "d_model": 64, "n_heads": 2, "n_layers": 1, "d_ff": 16,
          "positional": {"kind": "rope"}})",
      "config.json");
  EXPECT_EQ(c.positional.kind, PositionalKind::kRope);
  EXPECT_EQ(c.positional.rope_layout, phasor::RopeLayout::kHalf);
  EXPECT_EQ(c.positional.rotary_dim, 0);
  EXPECT_EQ(c.positional.RopeOptionsFor(c.d_head()).r(), 32);
  EXPECT_EQ(c.positional.scaling.type, phasor::RopeScalingType::kNone);
  c = phasor::ParseConfig(
      R"({"vocab_size": 10, "d_model": 64, "n_heads": 2, "n_layers": 1, "d_ff": 16,
          "positional": {"kind": "rope", "base": 500000, "layout": "interleaved",
                         "rotary_dim": 16, "offset": 3, "max_len": 128, "mode": "cached",
                         "scaling": {"type": "yarn", "factor": 4, "original_max_len": 32,
                                     "beta_fast": 16, "beta_slow": 2,
                                     "attention_factor": 1.5}}})",
      "config.json");
  const phasor::PositionalConfig& p = c.positional;
  EXPECT_EQ(p.base, 500000.0);
  EXPECT_EQ(p.rope_layout, phasor::RopeLayout::kInterleaved);
  EXPECT_EQ(p.rotary_dim, 16);
  EXPECT_EQ(p.offset, 3);
  EXPECT_EQ(p.max_len, 128);
  EXPECT_EQ(p.mode, PeMode::kCached);
  EXPECT_EQ(p.scaling.type, phasor::RopeScalingType::kYarn);
  EXPECT_EQ(p.scaling.factor, 4.0);
  EXPECT_EQ(p.scaling.original_max_len, 32);
  EXPECT_EQ(p.scaling.beta_fast, 16.0);
  EXPECT_EQ(p.scaling.beta_slow, 2.0);
  EXPECT_EQ(p.scaling.attention_factor, 1.5);
  // Round trip: only the keys of kind rope and of its scaling type are written.
  const std::string text = phasor::ConfigToJson(c);
  EXPECT_EQ(text.find("denominator"), std::string::npos) << text;
  EXPECT_EQ(text.find("low_freq_factor"), std::string::npos) << text;
  const ModelConfig back = phasor::ParseConfig(text, "round trip");
  EXPECT_EQ(phasor::ConfigToJson(back), text);
  EXPECT_EQ(back.positional.scaling.attention_factor, 1.5);
  EXPECT_EQ(back.positional.rotary_dim, 16);
}

TEST(ConfigRope, EveryScalingTypeRoundTrips) {
  for (const char* scaling :
       {R"({"type": "none"})", R"({"type": "linear", "factor": 2.5})",
        R"({"type": "ntk", "factor": 8})", R"({"type": "dynamic", "factor": 2})",
        R"({"type": "dynamic", "factor": 2, "original_max_len": 100})",
        R"({"type": "yarn", "factor": 16})",
        R"({"type": "llama3", "factor": 8, "original_max_len": 8192, "low_freq_factor": 1,
            "high_freq_factor": 4})"}) {
    const std::string json =
        std::string(R"({"vocab_size": 10, "d_model": 64, "n_heads": 2, "n_layers": 1,
                        "d_ff": 16, "positional": {"kind": "rope", "scaling": )") +
        scaling + "}}";
    const ModelConfig c = phasor::ParseConfig(json, "config.json");
    const std::string text = phasor::ConfigToJson(c);
    const ModelConfig back = phasor::ParseConfig(text, "round trip");
    EXPECT_EQ(phasor::ConfigToJson(back), text) << scaling;
    EXPECT_EQ(back.positional.scaling.type, c.positional.scaling.type) << scaling;
    EXPECT_EQ(back.positional.scaling.factor, c.positional.scaling.factor) << scaling;
    EXPECT_EQ(back.positional.scaling.original_max_len, c.positional.scaling.original_max_len);
  }
}

TEST(ConfigRope, ValidateRefusesABadStruct) {
  ModelConfig c;
  c.positional.kind = PositionalKind::kRope;
  c.positional.rotary_dim = 80;  // head dim 64
  EXPECT_EQ(phasor::testing::ErrorOf([&] { phasor::ValidateConfig(c, "toy"); }),
            "toy: key 'positional.rotary_dim': 80 is larger than the head dim 64 "
            "(d_model / n_heads)");
  c.positional.rotary_dim = 0;
  c.positional.scaling.type = phasor::RopeScalingType::kLinear;
  c.positional.scaling.factor = 0;
  EXPECT_NE(phasor::testing::ErrorOf([&] {
              phasor::ValidateConfig(c, "toy");
            }).find("'positional.scaling.factor'"),
            std::string::npos);
}

}  // namespace

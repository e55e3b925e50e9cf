// Tests of models/config's rotary positions with every scaling: each key
// read, written back and refused naming the key.
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

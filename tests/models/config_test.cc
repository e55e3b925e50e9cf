// Tests of models/config: defaults, the README's example, every rejection and
// the JSON round trip.
#include "models/config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/error.h"

namespace {

using phasor::Activation;
using phasor::Error;
using phasor::ModelConfig;
using phasor::PeDenominator;
using phasor::PeLayout;
using phasor::PeMode;
using phasor::PositionalKind;

// The five required keys, with small valid values.
const char kMinimal[] =
    R"({"vocab_size": 1000, "d_model": 256, "n_heads": 4, "n_layers": 2, "d_ff": 512})";

// The full example of the model format, comments removed.
const char kContractExample[] = R"({
  "vocab_size": 32000, "d_model": 512, "n_heads": 8, "n_layers": 6, "d_ff": 2048,
  "activation": "relu",
  "norm_first": false,
  "final_norm": false,
  "layer_norm_eps": 1e-5,
  "scale_embedding": false,
  "pad_token_id": null,
  "positional": {
    "kind": "sinusoidal",
    "base": 10000.0, "layout": "interleaved", "denominator": "d_model",
    "offset": 0, "max_len": 4096, "mode": "auto"
  }
})";

// Every field away from its default.
const char kEveryFieldSet[] = R"({
  "vocab_size": 50, "d_model": 12, "n_heads": 3, "n_layers": 7, "d_ff": 33,
  "activation": "gelu", "norm_first": true, "final_norm": true, "layer_norm_eps": 1e-12,
  "scale_embedding": true, "pad_token_id": 49,
  "positional": {"kind": "learned", "base": 500.5, "layout": "split",
                 "denominator": "half_minus_one", "offset": 1099511627776, "max_len": 77,
                 "mode": "cached"}
})";

template <typename Fn>
std::string ErrorMessage(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    if (std::getenv("PHASOR_PRINT_ERRORS")) std::cerr << e.what() << "\n";
    return e.what();
  }
  ADD_FAILURE() << "no Error thrown";
  return "";
}

// Every field, compared one by one (ModelConfig has no operator==).
void ExpectSameConfig(const ModelConfig& a, const ModelConfig& b) {
  EXPECT_EQ(a.vocab_size, b.vocab_size);
  EXPECT_EQ(a.d_model, b.d_model);
  EXPECT_EQ(a.n_heads, b.n_heads);
  EXPECT_EQ(a.n_layers, b.n_layers);
  EXPECT_EQ(a.d_ff, b.d_ff);
  EXPECT_EQ(a.activation, b.activation);
  EXPECT_EQ(a.norm_first, b.norm_first);
  EXPECT_EQ(a.final_norm, b.final_norm);
  EXPECT_EQ(a.layer_norm_eps, b.layer_norm_eps);
  EXPECT_EQ(a.scale_embedding, b.scale_embedding);
  EXPECT_EQ(a.pad_token_id, b.pad_token_id);
  EXPECT_EQ(a.positional.kind, b.positional.kind);
  EXPECT_EQ(a.positional.base, b.positional.base);
  EXPECT_EQ(a.positional.layout, b.positional.layout);
  EXPECT_EQ(a.positional.denominator, b.positional.denominator);
  EXPECT_EQ(a.positional.offset, b.positional.offset);
  EXPECT_EQ(a.positional.max_len, b.positional.max_len);
  EXPECT_EQ(a.positional.mode, b.positional.mode);
}

TEST(ConfigParse, MinimalUsesHeaderDefaults) {
  const ModelConfig c = phasor::ParseConfig(kMinimal, "config.json");
  ModelConfig expected;
  expected.vocab_size = 1000;
  expected.d_model = 256;
  expected.n_heads = 4;
  expected.n_layers = 2;
  expected.d_ff = 512;
  ExpectSameConfig(c, expected);
  EXPECT_EQ(c.activation, Activation::kRelu);
  EXPECT_FALSE(c.pad_token_id.has_value());
  EXPECT_EQ(c.positional.kind, PositionalKind::kSinusoidal);
  EXPECT_EQ(c.positional.base, 10000.0);
  EXPECT_EQ(c.positional.layout, PeLayout::kInterleaved);
  EXPECT_EQ(c.positional.denominator, PeDenominator::kDModel);
  EXPECT_EQ(c.positional.max_len, 4096);
  EXPECT_EQ(c.positional.mode, PeMode::kAuto);
  EXPECT_EQ(c.d_head(), 64);
}

TEST(ConfigParse, ContractExample) {
  const ModelConfig c = phasor::ParseConfig(kContractExample, "config.json");
  EXPECT_EQ(c.vocab_size, 32000);
  EXPECT_EQ(c.d_model, 512);
  EXPECT_EQ(c.n_heads, 8);
  EXPECT_EQ(c.n_layers, 6);
  EXPECT_EQ(c.d_ff, 2048);
  EXPECT_EQ(c.activation, Activation::kRelu);
  EXPECT_FALSE(c.norm_first);
  EXPECT_FALSE(c.final_norm);
  EXPECT_EQ(c.layer_norm_eps, 1e-5);
  EXPECT_FALSE(c.scale_embedding);
  EXPECT_FALSE(c.pad_token_id.has_value());
  EXPECT_EQ(c.positional.kind, PositionalKind::kSinusoidal);
  EXPECT_EQ(c.positional.base, 10000.0);
  EXPECT_EQ(c.positional.layout, PeLayout::kInterleaved);
  EXPECT_EQ(c.positional.denominator, PeDenominator::kDModel);
  EXPECT_EQ(c.positional.offset, 0);
  EXPECT_EQ(c.positional.max_len, 4096);
  EXPECT_EQ(c.positional.mode, PeMode::kAuto);
}

TEST(ConfigParse, EveryFieldSet) {
  const ModelConfig c = phasor::ParseConfig(kEveryFieldSet, "config.json");
  EXPECT_EQ(c.vocab_size, 50);
  EXPECT_EQ(c.d_model, 12);
  EXPECT_EQ(c.n_heads, 3);
  EXPECT_EQ(c.n_layers, 7);
  EXPECT_EQ(c.d_ff, 33);
  EXPECT_EQ(c.activation, Activation::kGelu);
  EXPECT_TRUE(c.norm_first);
  EXPECT_TRUE(c.final_norm);
  EXPECT_EQ(c.layer_norm_eps, 1e-12);
  EXPECT_TRUE(c.scale_embedding);
  EXPECT_EQ(c.pad_token_id, 49);
  EXPECT_EQ(c.positional.kind, PositionalKind::kLearned);
  EXPECT_EQ(c.positional.base, 500.5);
  EXPECT_EQ(c.positional.layout, PeLayout::kSplit);
  EXPECT_EQ(c.positional.denominator, PeDenominator::kHalfMinusOne);
  EXPECT_EQ(c.positional.offset, int64_t{1} << 40);
  EXPECT_EQ(c.positional.max_len, 77);
  EXPECT_EQ(c.positional.mode, PeMode::kCached);
}

TEST(ConfigParse, AcceptsEveryKindAndIntegerBase) {
  for (const char* kind : {"sinusoidal", "learned", "rope", "none"}) {
    const std::string text = std::string(R"({"vocab_size": 10, "d_model": 8, "n_heads": 2,)") +
                             R"("n_layers": 1, "d_ff": 16, "positional": {"kind": ")" + kind +
                             R"(", "base": 2}})";
    const ModelConfig c = phasor::ParseConfig(text, "config.json");
    EXPECT_STREQ(phasor::ToString(c.positional.kind), kind);
    EXPECT_EQ(c.positional.base, 2.0);
  }
}

TEST(ConfigParse, LimitsThemselvesAreAccepted) {
  // vocab 2^31 - 1 with d_model 8 is under 2^34 floats; on_the_fly keeps no
  // table. Then a layer of exactly 2^34 weights: 4 * 2^30 + 2 * 2^15 * 3 * 2^16.
  const ModelConfig c = phasor::ParseConfig(
      R"({"vocab_size": 2147483647, "d_model": 8, "n_heads": 8, "n_layers": 1024,
          "d_ff": 1048576, "pad_token_id": 2147483646,
          "positional": {"max_len": 67108864, "offset": 1099511627776, "mode": "on_the_fly"}})",
      "config.json");
  EXPECT_EQ(c.vocab_size, 2147483647);
  EXPECT_EQ(c.pad_token_id, 2147483646);
  EXPECT_NO_THROW(phasor::ParseConfig(
      R"({"vocab_size": 2, "d_model": 32768, "n_heads": 32768, "n_layers": 1, "d_ff": 196608,
          "positional": {"max_len": 1}})",
      "config.json"));
  EXPECT_THROW(phasor::ParseConfig(
                   R"({"vocab_size": 2, "d_model": 32768, "n_heads": 32768, "n_layers": 1,
                       "d_ff": 196609, "positional": {"max_len": 1}})",
                   "config.json"),
               Error);
}

TEST(ConfigToString, Names) {
  EXPECT_STREQ(phasor::ToString(Activation::kRelu), "relu");
  EXPECT_STREQ(phasor::ToString(Activation::kGelu), "gelu");
  EXPECT_STREQ(phasor::ToString(PositionalKind::kSinusoidal), "sinusoidal");
  EXPECT_STREQ(phasor::ToString(PositionalKind::kLearned), "learned");
  EXPECT_STREQ(phasor::ToString(PositionalKind::kRope), "rope");
  EXPECT_STREQ(phasor::ToString(PositionalKind::kNone), "none");
}

class ConfigRoundTripTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ConfigRoundTripTest, ToJsonThenParseGivesTheSameConfig) {
  const ModelConfig c = phasor::ParseConfig(GetParam(), "config.json");
  const std::string text = phasor::ConfigToJson(c);
  EXPECT_NE(text.find("\n  \"d_model\": "), std::string::npos) << "not indented by 2:\n" << text;
  const ModelConfig back = phasor::ParseConfig(text, "round trip");
  ExpectSameConfig(back, c);
  EXPECT_EQ(phasor::ConfigToJson(back), text);
}

INSTANTIATE_TEST_SUITE_P(Config, ConfigRoundTripTest,
                         ::testing::Values(kMinimal, kContractExample, kEveryFieldSet));

TEST(ConfigRoundTrip, AwkwardDoublesSurvive) {
  ModelConfig c;
  c.layer_norm_eps = 1.0 / 3.0;
  c.positional.base = 10000.000000000002;
  c.pad_token_id = 0;
  const ModelConfig back = phasor::ParseConfig(phasor::ConfigToJson(c), "config.json");
  ExpectSameConfig(back, c);
}

TEST(ConfigLoad, ReadsAFile) {
  const std::string path = ::testing::TempDir() + "phasor_config_test.json";
  {
    std::ofstream out(path);
    out << kContractExample;
  }
  const ModelConfig c = phasor::LoadConfig(path);
  EXPECT_EQ(c.d_model, 512);
}

TEST(ConfigLoad, ErrorsNameTheFile) {
  const std::string path = ::testing::TempDir() + "phasor_config_bad.json";
  {
    std::ofstream out(path);
    out << R"({"vocab_size": 1000, "d_model": 256, "n_heads": 5, "n_layers": 2, "d_ff": 512})";
  }
  EXPECT_EQ(ErrorMessage([&] { phasor::LoadConfig(path); }),
            path + ": key 'n_heads': 5 does not divide d_model 256");
}

TEST(ConfigLoad, MissingFile) {
  const std::string path = ::testing::TempDir() + "phasor_no_such_config.json";
  std::remove(path.c_str());
  const std::string message = ErrorMessage([&] { phasor::LoadConfig(path); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_EQ(message, path + ": no such file");
}

TEST(ConfigLoad, Directory) {
  const std::string path = ::testing::TempDir();
  const std::string message = ErrorMessage([&] { phasor::LoadConfig(path); });
  EXPECT_EQ(message, path + ": is not a regular file (a folder)");
}

TEST(ConfigValidate, RejectsAnOutOfRangeStruct) {
  ModelConfig c;
  c.n_heads = 3;  // does not divide 256
  EXPECT_EQ(ErrorMessage([&] { phasor::ValidateConfig(c, "toy"); }),
            "toy: key 'n_heads': 3 does not divide d_model 256");
  EXPECT_NO_THROW(phasor::ValidateConfig(ModelConfig(), "toy"));
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
  EXPECT_EQ(ErrorMessage([&] { phasor::ValidateConfig(c, "toy"); }),
            "toy: key 'positional.rotary_dim': 80 is larger than the head dim 64 "
            "(d_model / n_heads)");
  c.positional.rotary_dim = 0;
  c.positional.scaling.type = phasor::RopeScalingType::kLinear;
  c.positional.scaling.factor = 0;
  EXPECT_NE(
      ErrorMessage([&] { phasor::ValidateConfig(c, "toy"); }).find("'positional.scaling.factor'"),
      std::string::npos);
}

// A bad config: either a patch (RFC 7386) applied to kMinimal, or raw text when
// the case cannot be said in JSON (duplicates, syntax). The error must contain
// every expected piece; exact, if set, is the whole message.
struct BadConfig {
  const char* name;
  const char* patch;
  const char* raw;
  std::vector<std::string> expected;
  std::string exact;
};

void PrintTo(const BadConfig& c, std::ostream* os) { *os << c.name; }

BadConfig Patch(const char* name, const char* patch, std::vector<std::string> expected,
                std::string exact = "") {
  return BadConfig{name, patch, nullptr, std::move(expected), std::move(exact)};
}
BadConfig Raw(const char* name, const char* raw, std::vector<std::string> expected) {
  return BadConfig{name, nullptr, raw, std::move(expected), ""};
}

class ConfigBadInputTest : public ::testing::TestWithParam<BadConfig> {};

TEST_P(ConfigBadInputTest, ThrowsErrorNamingTheKey) {
  const BadConfig& c = GetParam();
  std::string text;
  if (c.raw) {
    text = c.raw;
  } else {
    nlohmann::json j = nlohmann::json::parse(kMinimal);
    j.merge_patch(nlohmann::json::parse(c.patch));
    text = j.dump();
  }
  const std::string message = ErrorMessage([&] { phasor::ParseConfig(text, "config.json"); });
  EXPECT_EQ(message.rfind("config.json: ", 0), 0u) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  for (const std::string& part : c.expected) {
    EXPECT_NE(message.find(part), std::string::npos)
        << "message: " << message << "\nmissing: " << part;
  }
  if (!c.exact.empty()) {
    EXPECT_EQ(message, c.exact);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Config, ConfigBadInputTest,
    ::testing::Values(
        // Syntax and structure.
        Raw("empty", "", {"not valid JSON"}),
        Raw("syntax", R"({"vocab_size": 10,})", {"not valid JSON"}),
        Raw("top_level_array", "[1]", {"expected a JSON object", "array"}),
        Raw("duplicate_key",
            R"({"vocab_size": 10, "d_model": 8, "n_heads": 2, "n_layers": 1, "d_ff": 4,
                "d_model": 16})",
            {"'d_model' appears twice"}),
        Raw("duplicate_positional_key",
            R"({"vocab_size": 10, "d_model": 8, "n_heads": 2, "n_layers": 1, "d_ff": 4,
                "positional": {"base": 2, "base": 3}})",
            {"'positional.base' appears twice"}),
        Raw("too_deep", "{\"a\": [[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]}",
            {"nested deeper"}),
        Raw("number_overflow",
            R"({"vocab_size": 10, "d_model": 8, "n_heads": 2, "n_layers": 1, "d_ff": 4,
                "layer_norm_eps": 1e999})",
            {"not valid JSON", "1e999"}),
        // Unknown and missing keys.
        Patch("unknown_key", R"({"d_modle": 256})",
              {"config.json: unknown key 'd_modle'", "did you mean 'd_model'"}),
        Patch("unknown_comment_key", R"({"_comment": "hi"})", {"unknown key '_comment'"}),
        Patch("unknown_model_type", R"({"model_type": "bert"})", {"unknown key 'model_type'"}),
        Patch("unknown_positional_key", R"({"positional": {"bse": 10}})",
              {"unknown key 'positional.bse'", "did you mean 'positional.base'"}),
        Patch("rope_key_with_kind_sinusoidal", R"({"positional": {"rotary_dim": 8}})",
              {"'positional.rotary_dim'", "kind 'rope' only", "'sinusoidal'"}),
        Patch("missing_vocab_size", R"({"vocab_size": null})",
              {"missing required key 'vocab_size'"}),
        Patch("missing_d_model", R"({"d_model": null})", {"missing required key 'd_model'"}),
        Patch("missing_n_heads", R"({"n_heads": null})", {"missing required key 'n_heads'"}),
        Patch("missing_n_layers", R"({"n_layers": null})", {"missing required key 'n_layers'"}),
        Patch("missing_d_ff", R"({"d_ff": null})", {"missing required key 'd_ff'"}),
        // Types.
        Patch("d_model_fraction", R"({"d_model": 3.5})", {},
              "config.json: key 'd_model': expected an integer, found 3.5"),
        Patch("d_model_float_integer", R"({"d_model": 256.0})", {"'d_model'", "found 256.0"}),
        Patch("d_model_bool", R"({"d_model": true})", {"'d_model'", "found true"}),
        Patch("d_model_string", R"({"d_model": "256"})", {"'d_model'", "found \"256\""}),
        Patch("n_layers_array", R"({"n_layers": [2]})", {"'n_layers'", "found [2]"}),
        Patch("d_ff_over_int64", R"({"d_ff": 18446744073709551615})",
              {"'d_ff'", "18446744073709551615"}),
        Patch("activation_number", R"({"activation": 1})", {"'activation'", "expected a string"}),
        Patch("norm_first_string", R"({"norm_first": "true"})",
              {"'norm_first'", "expected true or false"}),
        Patch("final_norm_number", R"({"final_norm": 1})", {"'final_norm'", "found 1"}),
        Patch("scale_embedding_array", R"({"scale_embedding": [null]})", {"'scale_embedding'"}),
        Patch("eps_string", R"({"layer_norm_eps": "1e-5"})",
              {"'layer_norm_eps'", "expected a number"}),
        Patch("pad_float", R"({"pad_token_id": 1.5})", {"'pad_token_id'", "found 1.5"}),
        Patch("pad_bool", R"({"pad_token_id": false})", {"'pad_token_id'", "found false"}),
        Patch("positional_not_object", R"({"positional": "sinusoidal"})",
              {"'positional'", "expected an object"}),
        Patch("base_string", R"({"positional": {"base": "10000"}})", {"'positional.base'"}),
        Patch("offset_fraction", R"({"positional": {"offset": 0.5}})",
              {"'positional.offset'", "expected an integer"}),
        Patch("max_len_bool", R"({"positional": {"max_len": true}})", {"'positional.max_len'"}),
        Patch("layout_number", R"({"positional": {"layout": 0}})", {"'positional.layout'"}),
        // Values.
        Patch("activation_unknown", R"({"activation": "swish"})", {},
              "config.json: key 'activation': unknown value 'swish', expected one of relu, gelu, "
              "gelu_tanh, silu"),
        Patch("kind_unknown", R"({"positional": {"kind": "foo"}})", {},
              "config.json: key 'positional.kind': unknown value 'foo', expected one of "
              "sinusoidal, learned, rope, none"),
        Patch("layout_unknown", R"({"positional": {"layout": "zigzag"}})",
              {"'positional.layout'", "'zigzag'", "interleaved"}),
        Patch("denominator_unknown", R"({"positional": {"denominator": "d"}})",
              {"'positional.denominator'", "'d'", "half_minus_one"}),
        Patch("mode_unknown", R"({"positional": {"mode": "lazy"}})",
              {"'positional.mode'", "'lazy'", "on_the_fly"}),
        // Ranges.
        Patch("vocab_zero", R"({"vocab_size": 0})", {"'vocab_size'", "0 is out of range"}),
        Patch("vocab_too_large", R"({"vocab_size": 2147483648})",
              {"'vocab_size'", "2147483648 is out of range"}),
        Patch("d_model_zero", R"({"d_model": 0})", {"'d_model'", "0 is out of range"}),
        Patch("d_model_negative", R"({"d_model": -256})", {"'d_model'", "-256 is out of range"}),
        Patch("d_model_odd", R"({"d_model": 255, "n_heads": 1})", {"'d_model'", "255 is odd"}),
        Patch("d_model_too_large", R"({"d_model": 131072})",
              {"'d_model'", "131072 is out of range", "65536"}),
        Patch("n_heads_not_dividing", R"({"n_heads": 5})", {},
              "config.json: key 'n_heads': 5 does not divide d_model 256"),
        Patch("n_heads_zero", R"({"n_heads": 0})", {"'n_heads'", "0 is out of range"}),
        Patch("n_heads_over_d_model", R"({"n_heads": 512})",
              {"'n_heads'", "512 is out of range", "d_model 256"}),
        Patch("n_layers_zero", R"({"n_layers": 0})", {"'n_layers'", "0 is out of range"}),
        Patch("n_layers_too_many", R"({"n_layers": 1025})", {"'n_layers'", "1024"}),
        Patch("d_ff_zero", R"({"d_ff": 0})", {"'d_ff'", "0 is out of range"}),
        Patch("d_ff_too_large", R"({"d_ff": 1048577})", {"'d_ff'", "1048576"}),
        Patch("eps_zero", R"({"layer_norm_eps": 0})", {"'layer_norm_eps'", "finite number > 0"}),
        Patch("eps_negative", R"({"layer_norm_eps": -1e-5})", {"'layer_norm_eps': -1e-05 is"}),
        Patch("pad_negative", R"({"pad_token_id": -1})", {"'pad_token_id'", "-1", "vocabulary"}),
        Patch("pad_at_vocab_size", R"({"pad_token_id": 1000})",
              {"'pad_token_id'", "1000", "vocabulary", "999"}),
        Patch("pad_huge", R"({"pad_token_id": 4294967296})", {"'pad_token_id'", "4294967296"}),
        // No vocabulary at all is vocab_size's fault, whatever the pad id.
        Patch("vocab_zero_with_pad", R"({"vocab_size": 0, "pad_token_id": 0})",
              {"'vocab_size': 0 is out of range, expected 1 to 2147483647"}),
        Patch("base_one", R"({"positional": {"base": 1}})",
              {"'positional.base'", "finite number > 1"}),
        Patch("base_below_one", R"({"positional": {"base": 0.5}})", {"'positional.base'"}),
        Patch("offset_negative", R"({"positional": {"offset": -1}})",
              {"'positional.offset'", "-1 is out of range"}),
        Patch("offset_past_2_40", R"({"positional": {"offset": 1099511627777}})",
              {"'positional.offset'", "2^40"}),
        Patch("max_len_zero", R"({"positional": {"max_len": 0}})",
              {"'positional.max_len'", "0 is out of range"}),
        Patch("max_len_too_large", R"({"positional": {"max_len": 67108865}})",
              {"'positional.max_len'", "2^26"}),
        Patch("half_minus_one_needs_d_model_4",
              R"({"d_model": 2, "n_heads": 1, "positional": {"denominator": "half_minus_one"}})",
              {"'positional.denominator'", "d_model >= 4", "found d_model 2"}),
        // RoPE keys, scalings and presets (head dim 256 / 4 = 64).
        Patch("preset_unknown", R"({"positional": {"preset": "bert"}})",
              {"'positional.preset'", "unknown value 'bert'", "vaswani", "marian-hf"}),
        Patch("preset_fairseq_without_pad", R"({"positional": {"preset": "fairseq"}})",
              {"'positional.preset'", "pad_token_id + 1", "pad_token_id or positional.offset"}),
        Patch("preset_not_a_string", R"({"positional": {"preset": 1}})",
              {"'positional.preset'", "expected a string"}),
        Patch("preset_with_kind_rope", R"({"positional": {"kind": "rope", "preset": "whisper"}})",
              {"'positional.preset'", "'sinusoidal' only", "'rope'"}),
        Patch("rope_denominator", R"({"positional": {"kind": "rope", "denominator": "d_model"}})",
              {"'positional.denominator'", "kind 'rope'"}),
        Patch("rope_layout_split", R"({"positional": {"kind": "rope", "layout": "split"}})",
              {"'positional.layout'", "'split'", "'half' or 'interleaved'"}),
        Patch("rope_rotary_dim_odd", R"({"positional": {"kind": "rope", "rotary_dim": 7}})", {},
              "config.json: key 'positional.rotary_dim': 7 is odd, expected an even number"),
        Patch("rope_rotary_dim_zero", R"({"positional": {"kind": "rope", "rotary_dim": 0}})",
              {"'positional.rotary_dim'", "0 is out of range"}),
        Patch("rope_rotary_dim_over_head_dim",
              R"({"positional": {"kind": "rope", "rotary_dim": 66}})",
              {"'positional.rotary_dim'", "66", "head dim 64"}),
        Patch("rope_rotary_dim_2_with_ntk",
              R"({"positional": {"kind": "rope", "rotary_dim": 2,
                  "scaling": {"type": "ntk", "factor": 2}}})",
              {"'positional.rotary_dim'", "'ntk'", ">= 4"}),
        Patch("rope_rotary_dim_2_with_dynamic",
              R"({"positional": {"kind": "rope", "rotary_dim": 2,
                  "scaling": {"type": "dynamic", "factor": 2}}})",
              {"'positional.rotary_dim'", "'dynamic'", ">= 4"}),
        Patch("rope_key_with_kind_learned",
              R"({"positional": {"kind": "learned", "scaling": {"type": "none"}}})",
              {"'positional.scaling'", "kind 'rope' only", "'learned'"}),
        Patch("scaling_not_object", R"({"positional": {"kind": "rope", "scaling": "linear"}})",
              {"'positional.scaling'", "expected an object"}),
        Patch("scaling_type_missing",
              R"({"positional": {"kind": "rope", "scaling": {"factor": 2}}})",
              {"'positional.scaling.type'", "missing"}),
        Patch("scaling_type_unknown",
              R"({"positional": {"kind": "rope", "scaling": {"type": "xpos", "factor": 2}}})",
              {"'positional.scaling.type'", "'xpos'", "llama3"}),
        Patch("scaling_unknown_key",
              R"({"positional": {"kind": "rope",
                  "scaling": {"type": "linear", "factor": 2, "fctor": 3}}})",
              {"unknown key 'positional.scaling.fctor'",
               "did you mean 'positional.scaling.factor'"}),
        Patch("scaling_key_of_another_type",
              R"({"positional": {"kind": "rope",
                  "scaling": {"type": "linear", "factor": 2, "beta_fast": 32}}})",
              {},
              "config.json: key 'positional.scaling.beta_fast': is not used by scaling type "
              "'linear' (it uses factor)"),
        Patch("scaling_original_max_len_with_ntk",
              R"({"positional": {"kind": "rope",
                  "scaling": {"type": "ntk", "factor": 2, "original_max_len": 2048}}})",
              {"'positional.scaling.original_max_len'", "'ntk'"}),
        Patch("scaling_none_with_factor",
              R"({"positional": {"kind": "rope", "scaling": {"type": "none", "factor": 2}}})",
              {"'positional.scaling.factor'", "'none'"}),
        Patch("scaling_factor_missing",
              R"({"positional": {"kind": "rope", "scaling": {"type": "yarn"}}})",
              {"'positional.scaling.factor'", "missing", "'yarn'"}),
        Patch("scaling_factor_zero",
              R"({"positional": {"kind": "rope", "scaling": {"type": "linear", "factor": 0}}})",
              {"'positional.scaling.factor'", "0 is out of range", "> 0"}),
        Patch("scaling_factor_negative",
              R"({"positional": {"kind": "rope", "scaling": {"type": "llama3", "factor": -2}}})",
              {"'positional.scaling.factor'", "-2 is out of range"}),
        Patch("scaling_factor_string",
              R"({"positional": {"kind": "rope", "scaling": {"type": "ntk", "factor": "2"}}})",
              {"'positional.scaling.factor'", "expected a number"}),
        Patch("scaling_original_max_len_zero",
              R"({"positional": {"kind": "rope",
                  "scaling": {"type": "dynamic", "factor": 2, "original_max_len": 0}}})",
              {"'positional.scaling.original_max_len'", "0 is out of range"}),
        Patch("scaling_original_max_len_negative",
              R"({"positional": {"kind": "rope",
                  "scaling": {"type": "yarn", "factor": 2, "original_max_len": -5}}})",
              {"'positional.scaling.original_max_len'", "-5 is out of range"}),
        Patch("scaling_yarn_betas_reversed",
              R"({"positional": {"kind": "rope",
                  "scaling": {"type": "yarn", "factor": 2, "beta_fast": 1, "beta_slow": 2}}})",
              {"'positional.scaling.beta_fast'", "beta_slow"}),
        Patch("scaling_yarn_attention_factor_zero",
              R"({"positional": {"kind": "rope",
                  "scaling": {"type": "yarn", "factor": 2, "attention_factor": 0}}})",
              {"'positional.scaling.attention_factor'"}),
        Patch("scaling_llama3_freq_factors_reversed",
              R"({"positional": {"kind": "rope", "scaling": {"type": "llama3", "factor": 8,
                  "low_freq_factor": 4, "high_freq_factor": 1}}})",
              {"'positional.scaling.high_freq_factor'", "low_freq_factor"}),
        // Memory.
        Patch("embedding_too_large", R"({"vocab_size": 2147483647, "d_model": 16})",
              {"'vocab_size'", "2^34"}),
        Patch("layer_too_large", R"({"d_model": 65536, "d_ff": 65536})", {"'d_ff'", "2^34"}),
        Patch("table_too_large", R"({"d_model": 1024, "positional": {"max_len": 67108864}})",
              {"'positional.max_len'", "2^34"}),
        Patch("learned_table_too_large",
              R"({"d_model": 1024, "positional": {"kind": "learned", "max_len": 67108864,
                  "mode": "on_the_fly"}})",
              {"'positional.max_len'", "2^34"})),
    [](const ::testing::TestParamInfo<BadConfig>& info) { return std::string(info.param.name); });

}  // namespace

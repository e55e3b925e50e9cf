// The layers' later parts (config.json "parts", models/config_parts.h) and the
// architectures built on them (modernbert, qwen3, gemma3_text, new, qwen2,
// llama, mistral): the
// object read, written back and checked; what each checkpoint reader refuses
// by name; and properties that hold whatever the weights: under a causal mask
// a line's first k rows are those of its first k tokens alone, under a window
// a token past the window changes nothing before it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/error.h"
#include "models/config.h"
#include "models/phasor.h"
#include "tests/support/hf_copy.h"
#include "tests/support/toy_dir.h"

namespace phasor {
namespace {

using testing::HfDir;

std::string ErrorOf(const std::string& text) {
  try {
    ParseConfig(text, "config.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const char* kParts = R"({"vocab_size": 50, "d_model": 32, "n_heads": 4, "n_layers": 3,
  "d_ff": 48, "norm_first": true, "gated_ff": true, "final_norm": true,
  "positional": {"kind": "rope"},
  "parts": {"n_kv_heads": 2, "head_dim": 16, "norm": "rms_norm", "norm_weight_offset": 1.0,
            "qk_norm": true, "attention_scale": 0.25, "causal": true, "sandwich": true,
            "first_attention_norm": false, "distance_bias_radius": 6,
            "local": {"layers": [0, 2], "before": 3, "after": 3, "base": 10000.0}}})";

TEST(LayerPartsConfig, ReadWrittenBackAndReadAgain) {
  const ModelConfig c = ParseConfig(kParts, "config.json");
  const LayerParts& p = c.parts;
  EXPECT_EQ(p.n_kv_heads, 2);
  EXPECT_EQ(c.d_head(), 16);
  EXPECT_EQ(c.kv_heads(), 2);
  EXPECT_EQ(p.norm, NormKind::kRms);
  EXPECT_EQ(p.norm_weight_offset, 1.0);
  EXPECT_TRUE(p.qk_norm && p.causal && p.sandwich && !p.first_attention_norm);
  EXPECT_EQ(p.local.layers, (std::vector<int64_t>{0, 2}));
  EXPECT_TRUE(p.IsLocal(2) && !p.IsLocal(1));
  // Layer options: the local layer's window, made causal; layer 0 without norm1.
  const EncoderLayerOptions l0 = c.LayerOptions(0, Precision::kFp32);
  EXPECT_EQ(l0.attention.window.before, 3);
  EXPECT_EQ(l0.attention.window.after, 0);
  EXPECT_FALSE(l0.attention_norm);
  const EncoderLayerOptions l1 = c.LayerOptions(1, Precision::kFp32);
  EXPECT_EQ(l1.attention.window.before, -1);
  EXPECT_EQ(l1.attention.window.after, 0);
  EXPECT_TRUE(l1.attention_norm);
  EXPECT_FLOAT_EQ(l1.attention.scale, 0.25f);
  const std::string json = ConfigToJson(c);
  EXPECT_EQ(ConfigToJson(ParseConfig(json, "again")), json);
  // Defaults write no "parts" at all.
  EXPECT_EQ(ConfigToJson(ParseConfig(R"({"vocab_size": 5, "d_model": 8, "n_heads": 2,
      "n_layers": 1, "d_ff": 8})",
                                     "c"))
                .find("parts"),
            std::string::npos);
}

TEST(LayerPartsConfig, BadValuesAreNamed) {
  auto with = [](const std::string& from, const std::string& to) {
    std::string text = kParts;
    text.replace(text.find(from), from.size(), to);
    return ErrorOf(text);
  };
  EXPECT_NE(with("\"n_kv_heads\": 2", "\"n_kv_heads\": 3").find("key 'parts.n_kv_heads'"),
            std::string::npos);
  EXPECT_NE(with("\"norm\": \"rms_norm\"", "\"norm\": \"batch\"").find("key 'parts.norm'"),
            std::string::npos);
  EXPECT_NE(with("\"layers\": [0, 2]", "\"layers\": [2, 0]").find("key 'parts.local.layers'"),
            std::string::npos);
  EXPECT_NE(with("\"layers\": [0, 2]", "\"layers\": [0, 3]").find("key 'parts.local.layers'"),
            std::string::npos);
  EXPECT_NE(with("\"qk_norm\": true", "\"qk_nrom\": true").find("key 'parts.qk_nrom'"),
            std::string::npos);
  EXPECT_NE(with("\"norm_first\": true", "\"norm_first\": false").find("needs norm_first"),
            std::string::npos);
  EXPECT_NE(with("\"head_dim\": 16", "\"head_dim\": -2").find("key 'parts.head_dim'"),
            std::string::npos);
}

// A copy of a golden case with config.json edited.
class RefusalTest : public testing::HfCopyTest {
 protected:
  void Refused(const std::string& from, const std::string& to, const std::string& fragment) {
    WriteConfig(from, to);
    ExpectLoadError(fragment);
  }
};

TEST_F(RefusalTest, Qwen3) {
  CopyCase("qwen3");
  Refused("\"rope_scaling\": null", "\"rope_scaling\": {\"type\": \"yarn\", \"factor\": 4.0}",
          "config.json: key 'rope_scaling.type': 'yarn' is not supported");
  Refused("\"use_sliding_window\": false", "\"use_sliding_window\": true",
          "key 'use_sliding_window': true is not supported");
  Refused("\"num_key_value_heads\": 2", "\"num_key_value_heads\": 3",
          "key 'num_key_value_heads': 3 does not divide num_attention_heads (4)");
  Refused("\"hidden_act\": \"silu\"", "\"hidden_act\": \"relu\"", "key 'hidden_act'");
}

TEST_F(RefusalTest, Gemma3Text) {
  CopyCase("gemma3_text");
  Refused("\"use_bidirectional_attention\": true", "\"use_bidirectional_attention\": false",
          "key 'use_bidirectional_attention': expected true");
  Refused("\"full_attention\",", "\"chunked_attention\",",
          "key 'layer_types': 'chunked_attention' is not a layer type phasor reads");
  Refused("\"sliding_attention\",\n    \"full_attention\",", "\"full_attention\",",
          "key 'layer_types': names 3 layers, expected 4");
}

TEST_F(RefusalTest, ModernBertAndGte) {
  CopyCase("modernbert_bf16");
  Refused("\"rope_type\": \"default\"", "\"rope_type\": \"yarn\"",
          "key 'rope_parameters.full_attention.rope_type': 'yarn' is not supported");
  CopyCase("new_gte");
  Refused("\"pack_qkv\": true", "\"pack_qkv\": false", "key 'pack_qkv': false is not supported");
  Refused("\"type\": \"ntk\"", "\"type\": \"dynamic\"", "key 'rope_scaling.type'");
  Refused("\"position_embedding_type\": \"rope\"", "\"position_embedding_type\": \"absolute\"",
          "key 'position_embedding_type'");
}

TEST_F(RefusalTest, Qwen2) {
  CopyCase("qwen2");
  Refused("\"use_sliding_window\": false", "\"use_sliding_window\": true",
          "config.json: key 'use_sliding_window': true is not supported");
  Refused("\"use_sliding_window\": false", "\"is_causal\": false",
          "key 'is_causal': false is not supported");
  Refused("\"rope_theta\": 1000000.0", "\"rope_theta\": 1.0", "key 'rope_theta': expected");
  CopyCase("qwen2_bf16");
  Refused("\"full_attention\",", "\"sliding_attention\",",
          "key 'layer_types': 'sliding_attention' is not supported");
  Refused("\"rope_type\": \"default\"", "\"rope_type\": \"yarn\"",
          "key 'rope_parameters.rope_type': 'yarn' is not supported, expected 'default', "
          "'linear' or 'llama3'");
}

// gte-Qwen2's folders name their own modeling code (auto_map): phasor loads
// them as transformers' Qwen2Model and says so, once.
TEST_F(RefusalTest, Qwen2OwnModelingCodeIsNamedInAWarning) {
  CopyCase("qwen2");
  WriteConfig("\"use_sliding_window\": false",
              "\"auto_map\": {\"AutoModel\": \"modeling_qwen.Qwen2Model\"}, "
              "\"use_sliding_window\": false");
  const std::vector<std::string> warnings = Model::Load(dir_).load_warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("config.json: key 'auto_map' names the folder's own modeling code"),
            std::string::npos)
      << warnings[0];
  EXPECT_TRUE(Model::Load(HfDir("qwen2")).load_warnings().empty());
}

TEST_F(RefusalTest, LlamaRopeScaling) {
  CopyCase("llama");
  Refused("\"rope_type\": \"llama3\"", "\"rope_type\": \"longrope\"",
          "key 'rope_scaling.rope_type': 'longrope' is not supported");
  Refused("\"rope_type\": \"llama3\"", "\"type\": \"dynamic\"",
          "key 'rope_scaling.type': 'dynamic' is not supported");
  Refused("\"low_freq_factor\": 1.0,", "",
          "key 'rope_scaling.low_freq_factor': is required by this rope type");
  Refused("\"high_freq_factor\": 4.0", "\"high_freq_factor\": 0.5",
          "key 'rope_scaling.high_freq_factor': expected a number > low_freq_factor");
  Refused("\"original_max_position_embeddings\": 64", "\"original_max_position_embeddings\": 0",
          "key 'rope_scaling.original_max_position_embeddings': 0 is out of range");
  Refused("\"factor\": 8.0", "\"factor\": -8.0", "key 'rope_scaling.factor': expected");
  Refused("\"hidden_act\": \"silu\"", "\"hidden_act\": \"gelu\"", "key 'hidden_act'");
  Refused("\"mlp_bias\": false", "\"mlp_bias\": true", "layers.0.mlp.up_proj.bias");
  CopyCase("llama_bf16");
  Refused("\"rope_type\": \"linear\"", "\"rope_type\": \"yarn\"",
          "key 'rope_parameters.rope_type': 'yarn' is not supported");
}

TEST_F(RefusalTest, Mistral) {
  CopyCase("mistral");
  Refused("\"sliding_window\": 6", "\"sliding_window\": 0",
          "key 'sliding_window': 0 is out of range");
  Refused("\"sliding_window\": 6", "\"sliding_window\": \"6\"",
          "key 'sliding_window': expected an integer");
  Refused("\"num_key_value_heads\": 2", "\"num_key_value_heads\": 3",
          "key 'num_key_value_heads': 3 does not divide num_attention_heads (4)");
}

// Rows [b, j] of model's encoding of ids (one line).
std::vector<float> Encode(const Model& m, const std::vector<int32_t>& ids) {
  std::vector<float> out(ids.size() * static_cast<size_t>(m.d_model()));
  m.Encode(ids.data(), 1, static_cast<int64_t>(ids.size()), out.data(), {});
  return out;
}

// Causal (Qwen3): the first k rows of a line are the rows of its first k
// tokens alone (to rounding: the padding-free products may split differently).
TEST(MaskProperties, CausalRowsDoNotSeeLaterTokens) {
  const Model m = Model::Load(HfDir("qwen3"));
  const std::vector<int32_t> line = {5, 9, 14, 2, 33, 40, 7, 11, 19, 3, 8, 21};
  const std::vector<float> full = Encode(m, line);
  for (size_t k : {1u, 4u, 11u}) {
    const std::vector<float> head = Encode(m, {line.begin(), line.begin() + k});
    for (size_t i = 0; i < head.size(); ++i) ASSERT_NEAR(head[i], full[i], 1e-5) << k << " " << i;
  }
  // Bidirectional (Gemma 3's full layer): the first row sees the last token.
  const Model g = Model::Load(HfDir("gemma3_text"));
  const std::vector<float> all = Encode(g, line);
  const std::vector<float> first = Encode(g, {line.begin(), line.begin() + 1});
  double diff = 0;
  for (size_t i = 0; i < first.size(); ++i)
    diff = std::max(diff, double{std::abs(first[i] - all[i])});
  EXPECT_GT(diff, 1e-3);
}

// Mistral's window (sliding_window 6): query i sees keys i - 5 .. i. A
// window of the line's length, a null one and an absent one (MistralConfig's
// 4096) are causal attention alike; sliding_window 6 leaves a line's first 6
// rows as they are and changes later ones.
class MistralWindowTest : public testing::HfCopyTest {
 protected:
  std::vector<float> EncodeWith(const std::string& to, const std::vector<int32_t>& line) {
    WriteConfig("\"sliding_window\": 6,", to);
    return Encode(Model::Load(dir_), line);
  }
};

TEST_F(MistralWindowTest, AWindowOfTheLineIsCausalAttention) {
  CopyCase("mistral");
  std::vector<int32_t> line(20);
  for (size_t i = 0; i < line.size(); ++i) line[i] = static_cast<int32_t>(i * 13 % 60);
  const std::vector<float> wide = EncodeWith("\"sliding_window\": 20,", line);
  EXPECT_EQ(EncodeWith("\"sliding_window\": null,", line), wide);
  EXPECT_EQ(EncodeWith("", line), wide);
  const std::vector<float> narrow = Encode(Model::Load(HfDir("mistral")), line);
  const size_t d = narrow.size() / line.size();
  double first = 0, later = 0;  // the largest differences of rows 0-5 and of the others
  for (size_t i = 0; i < narrow.size(); ++i) {
    const double e = std::abs(narrow[i] - wide[i]);
    if (i < 6 * d) {
      first = std::max(first, e);
    } else {
      later = std::max(later, e);
    }
  }
  EXPECT_LT(first, 1e-5);
  EXPECT_GT(later, 1e-3);
}

// phasor's own format with every part set, random weights of that shape
// (ToyWeights): it loads, and each line of a padded batch is the same bits as
// that line alone, at every precision.
TEST(LayerPartsConfig, AToyWithEveryPartRunsAndALineIsTheSameAlone) {
  const ModelConfig c = ParseConfig(kParts, "config.json");
  const testing::ToyDir dir(c, "parts");
  for (Precision precision : {Precision::kFp32, Precision::kBf16, Precision::kInt8}) {
    LoadOptions lo;
    lo.precision = precision;
    const Model m = Model::Load(dir.path(), lo);
    const int64_t d = m.d_model(), seq = 40;
    std::vector<int32_t> ids(2 * seq);
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(i * 7 % 50);
    const int64_t lengths[] = {40, 9};
    std::vector<float> batch(static_cast<size_t>(2 * seq * d));
    EncodeOptions o;
    o.lengths = lengths;
    m.Encode(ids.data(), 2, seq, batch.data(), o);
    for (int64_t b = 0; b < 2; ++b) {
      std::vector<float> alone(static_cast<size_t>(lengths[b] * d));
      m.Encode(ids.data() + b * seq, 1, lengths[b], alone.data(), {});
      for (float x : alone) ASSERT_TRUE(std::isfinite(x));
      EXPECT_TRUE(std::equal(alone.begin(), alone.end(), batch.begin() + b * seq * d))
          << ToString(precision) << " line " << b;
    }
  }
}

}  // namespace
}  // namespace phasor

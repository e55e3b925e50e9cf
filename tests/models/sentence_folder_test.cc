// sentence-transformers folders of the golden cases (tests/data/hf/st_*):
// --pool model applies the pooling, Dense modules and Normalize that
// modules.json declares, against the float64 reference's pooled rows; what a
// folder holds that phasor does not apply, and a bad Dense, named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "engine/model_folder.h"
#include "engine/npy.h"
#include "engine/safetensors.h"
#include "models/phasor.h"
#include "models/sentence_transformers.h"
#include "models/tokens.h"
#include "tests/support/golden.h"
#include "tests/support/hf_copy.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

namespace fs = std::filesystem;

using testing::HfDir;

// sentence-transformers folders: --pool model (Python pool="model") applies
// the pooling and Normalize that modules.json declares: the reference's pooled
// rows within 1e-4, and the explicit --pool and --normalize bit for bit.
class SentenceTransformersTest
    : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(SentenceTransformersTest, PoolModelIsWhatTheFolderDeclares) {
  const auto& [name, explicit_pool] = GetParam();
  const std::string dir = HfDir(name);
  const PoolSpec declared = DeclaredPooling(*ModelFolder::Open(dir));
  EXPECT_EQ(ToString(declared.pooling), explicit_pool);
  EXPECT_TRUE(declared.normalize);
  const Model model = Model::Load(dir);
  const TokenBatch tb = LoadTokens(dir + "/tokens.txt");
  const NpyArray want = ReadNpy(dir + "/expected_pooled.npy");
  const int64_t d = model.d_model();
  ASSERT_EQ(want.shape, (std::vector<int64_t>{tb.batch, d}));
  std::vector<float> got(static_cast<size_t>(tb.batch * d));
  EncodeOptions o;
  o.pool = declared.pooling;
  o.normalize = declared.normalize;
  model.EncodePacked(tb.ids.data(), tb.offsets.data(), tb.batch, got.data(), o);
  testing::MaxError err(d);
  for (size_t i = 0; i < got.size(); ++i) err.Add(static_cast<int64_t>(i), got[i], want.data[i]);
  EXPECT_TRUE(err <= testing::kGoldenOutputTol) << err;
  // The CLI: --pool model and the explicit options write the same bytes.
  const std::string a = ::testing::TempDir() + "model.npy",
                    b = ::testing::TempDir() + "explicit.npy";
  const std::string common = "encode --model " + dir + " --tokens-file " + dir + "/tokens.txt ";
  const auto r1 = testing::RunPhasor(common + "--pool model --output " + a);
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  const auto r2 =
      testing::RunPhasor(common + "--pool " + explicit_pool + " --normalize --output " + b);
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_EQ(testing::ReadFile(a), testing::ReadFile(b));
  EXPECT_EQ(ReadNpy(a).data, got);
}

// The rows of dir's tokens.txt pooled as its modules declare (mean, Dense
// modules, Normalize), out wide each, against the float64 reference's
// expected_pooled.npy; returns them.
std::vector<float> ExpectDeclaredPooling(const std::string& dir, const Model& model,
                                         const TokenBatch& tb, int64_t out, EncodeOptions& o) {
  const PoolSpec declared = DeclaredPooling(*ModelFolder::Open(dir));
  EXPECT_EQ(declared.pooling, Pooling::kMean);
  EXPECT_TRUE(declared.dense);
  EXPECT_TRUE(declared.normalize);
  o.pool = declared.pooling;
  o.normalize = declared.normalize;
  o.sentence_dense = declared.dense;
  EXPECT_EQ(model.output_dim(o), out);
  const NpyArray want = ReadNpy(dir + "/expected_pooled.npy");
  EXPECT_EQ(want.shape, (std::vector<int64_t>{tb.batch, out}));
  std::vector<float> got(static_cast<size_t>(tb.batch * out));
  model.EncodePacked(tb.ids.data(), tb.offsets.data(), tb.batch, got.data(), o);
  testing::MaxError err(out);
  for (size_t i = 0; i < got.size() && i < want.data.size(); ++i) {
    err.Add(static_cast<int64_t>(i), got[i], want.data[i]);
  }
  EXPECT_TRUE(err <= testing::kGoldenOutputTol) << err;
  return got;
}

// 2_Dense: pooling, the Dense module (tanh, 32 -> 16), then Normalize; the
// second folder's Dense config names no activation_function (Tanh, the default).
class SentenceDenseTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SentenceDenseTest, DenseRunsBetweenPoolingAndNormalize) {
  const std::string dir = HfDir(GetParam());
  const Model model = Model::Load(dir);
  const TokenBatch tb = LoadTokens(dir + "/tokens.txt");
  EncodeOptions o;
  const std::vector<float> got = ExpectDeclaredPooling(dir, model, tb, 16, o);
  // The CLI's --pool model writes the same bytes; --pool mean alone skips the Dense.
  const std::string a = ::testing::TempDir() + "dense.npy";
  const auto r = testing::RunPhasor("encode --model " + dir + " --tokens-file " + dir +
                                    "/tokens.txt --pool model --output " + a);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadNpy(a).shape, (std::vector<int64_t>{tb.batch, 16}));
  EXPECT_EQ(ReadNpy(a).data, got);
  o.sentence_dense = false;
  EXPECT_EQ(model.output_dim(o), 32);
}

INSTANTIATE_TEST_SUITE_P(NamedAndDefaultActivation, SentenceDenseTest,
                         ::testing::Values("st_dense", "st_dense_default_tanh"));

// EmbeddingGemma's folder: the gemma3_text model, mean pooling, two Dense
// modules without bias or activation (32 -> 64 -> 32), Normalize; and its
// prompts, read from config_sentence_transformers.json.
TEST(SentenceTransformersTest, EmbeddingGemmaFolder) {
  const std::string dir = HfDir("st_gemma3");
  const std::shared_ptr<const ModelFolder> folder = ModelFolder::Open(dir);
  EXPECT_EQ(folder->Prompt("query"), "task: search result | query: ");
  EXPECT_EQ(folder->Prompt("document"), "title: none | text: ");
  EXPECT_EQ(folder->Prompt("STS"), "task: sentence similarity | query: ");
  const Model model = Model::Load(dir);
  const TokenBatch tb = LoadTokens(dir + "/tokens.txt");
  EncodeOptions o;
  const std::vector<float> got = ExpectDeclaredPooling(dir, model, tb, 32, o);
  // Each line alone gives the same bits as in the batch.
  for (int64_t b = 0; b < tb.batch; ++b) {
    const int64_t begin = tb.offsets[static_cast<size_t>(b)];
    const int64_t end = tb.offsets[static_cast<size_t>(b) + 1];
    const std::vector<int64_t> one = {0, end - begin};
    std::vector<float> alone(32);
    model.EncodePacked(tb.ids.data() + begin, one.data(), 1, alone.data(), o);
    EXPECT_TRUE(std::equal(alone.begin(), alone.end(), got.begin() + b * 32)) << "line " << b;
  }
}

// A Dense module phasor cannot apply as declared: the file and key, value or
// tensor named, at load.
TEST(SentenceTransformersTest, ABadDenseIsNamed) {
  const std::string dir = ::testing::TempDir() + "st_dense_hostile";
  fs::remove_all(dir);
  fs::copy(HfDir("st_dense"), dir, fs::copy_options::recursive);
  std::string cfg;
  {
    std::ifstream in(dir + "/2_Dense/config.json");
    cfg.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto expect = [&](const std::string& from, const std::string& to,
                          const std::string& fragment) {
    std::string text = cfg;
    ASSERT_NE(text.find(from), std::string::npos) << from;
    text.replace(text.find(from), from.size(), to);
    std::ofstream(dir + "/2_Dense/config.json") << text;
    try {
      Model::Load(dir);
      ADD_FAILURE() << "loaded; expected " << fragment;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
    const auto r = testing::RunPhasor("encode --model " + dir + " --tokens 3 --pool model");
    EXPECT_EQ(r.exit_code, 1);
    testing::ExpectOneErrorLine(r);
  };
  expect("torch.nn.modules.activation.Tanh", "torch.nn.modules.activation.GELU",
         "2_Dense/config.json: key 'activation_function': 'torch.nn.modules.activation.GELU' is "
         "not supported");
  expect("\"out_features\": 16", "\"out_features\": 17",
         "2_Dense/model.safetensors: tensor 'linear.weight': got [16, 32], expected [17, 32]");
  expect("\"in_features\": 32", "\"in_features\": 24",
         "2_Dense/config.json: key 'in_features': 24, expected 32");
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(EveryMode, SentenceTransformersTest,
                         ::testing::Values(std::pair{"st_mean", "mean"},
                                           std::pair{"st_lasttoken", "last"},
                                           std::pair{"st_mean_sqrt_len", "mean_sqrt_len"}));

TEST(SentenceTransformersTest, WhatIsNotAppliedIsNamed) {
  const std::string dir = ::testing::TempDir() + "st_hostile";
  fs::remove_all(dir);
  fs::copy(HfDir("st_mean"), dir, fs::copy_options::recursive);
  const auto expect = [&](const std::string& fragment) {
    try {
      DeclaredPooling(*ModelFolder::Open(dir));
      ADD_FAILURE() << "no error; expected " << fragment;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  std::string pooling;
  {
    std::ifstream in(dir + "/1_Pooling/config.json");
    pooling.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::string both = pooling;
  both.replace(both.find("\"pooling_mode_cls_token\": false"), 31,
               "\"pooling_mode_cls_token\": true");
  std::ofstream(dir + "/1_Pooling/config.json") << both;
  expect("key 'pooling_mode_mean_tokens': a second pooling mode beside 'pooling_mode_cls_token'");
  std::string weighted = pooling;
  weighted.replace(weighted.find("\"pooling_mode_mean_tokens\": true"), 32,
                   "\"pooling_mode_mean_tokens\": false");
  weighted.replace(weighted.find("\"pooling_mode_weightedmean_tokens\": false"), 41,
                   "\"pooling_mode_weightedmean_tokens\": true");
  std::ofstream(dir + "/1_Pooling/config.json") << weighted;
  expect("key 'pooling_mode_weightedmean_tokens': this pooling is not supported");
  std::ofstream(dir + "/1_Pooling/config.json") << pooling;
  std::ofstream(dir + "/modules.json")
      << R"([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
 {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
 {"idx": 2, "name": "2", "path": "2_Quantize", "type": "sentence_transformers.models.Quantize"}])";
  expect("module 'sentence_transformers.models.Quantize' (2_Quantize) is not supported");
  std::ofstream(dir + "/modules.json")
      << R"([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
 {"idx": 1, "name": "1", "path": "2_Dense", "type": "sentence_transformers.models.Dense"},
 {"idx": 2, "name": "2", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}])";
  expect(
      "module 'sentence_transformers.models.Dense' (2_Dense) out of the order Pooling, Dense, "
      "Normalize is not supported");
  fs::remove(dir + "/modules.json");
  expect("has no modules.json: --pool model needs a sentence-transformers folder");
  const auto r = testing::RunPhasor("encode --model " + dir + " --tokens 3 --pool model");
  EXPECT_EQ(r.exit_code, 1);
  testing::ExpectOneErrorLine(r);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace phasor

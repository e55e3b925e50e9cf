// Checkpoints of other libraries read as they are (models/architectures/):
// each golden case of tests/data/hf (tests/data/make_hf_golden.py, a float64
// NumPy transcription of Hugging Face's modeling code) within 1e-4, on every
// target; a line's rows the same bits alone and in a batch; and what cannot be
// read refused with the file, key, value or tensor named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
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

// Whether a tokens file's tab marks segment 1 for the model (it has token types).
bool HasPairs(const Model& model) { return model.token_types() >= 2; }

class HfGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(HfGoldenTest, MatchesTheFloat64ReferenceAndIsTheSameBitsAlone) {
  const std::string dir = HfDir(GetParam());
  const Model model = Model::Load(dir);
  const TokenBatch tb = LoadTokens(dir + "/tokens.txt", HasPairs(model));
  const NpyArray want = ReadNpy(dir + "/expected.npy");
  const int64_t d = model.d_model();
  ASSERT_EQ(want.shape, (std::vector<int64_t>{tb.batch, tb.seq, d}));
  // Rotary checkpoints may have no pad id: padding is masked whatever it holds.
  const std::vector<int32_t> ids = tb.Padded(model.pad_token_id().value_or(0));
  const std::vector<int32_t> types = tb.PaddedTypes();
  std::vector<float> got(static_cast<size_t>(tb.batch * tb.seq * d));
  EncodeOptions o;
  o.lengths = tb.lengths.data();
  o.token_types = types.empty() ? nullptr : types.data();
  model.Encode(ids.data(), tb.batch, tb.seq, got.data(), o);
  const testing::MaxError err = testing::RealTokenError(got.data(), want.data.data(), tb, d);
  EXPECT_TRUE(err <= testing::kGoldenOutputTol) << err;
  std::printf("%s: max abs error %.3g\n", GetParam().c_str(), err.value());
  for (int64_t b = 0; b < tb.batch; ++b) {  // alone: the same bits
    std::vector<float> alone(static_cast<size_t>(tb.lengths[b] * d));
    EncodeOptions one;
    one.token_types = types.empty() ? nullptr : types.data() + b * tb.seq;
    model.Encode(ids.data() + b * tb.seq, 1, tb.lengths[b], alone.data(), one);
    EXPECT_TRUE(std::equal(alone.begin(), alone.end(), got.begin() + b * tb.seq * d))
        << "line " << b;
  }
}

// The narrow precisions keep their gates on imported models: every real row's
// cosine with the float64 reference at least 0.9995 (bf16) and 0.999 (int8).
// The Llama family's cases (Qwen3, Gemma 3: q/k norms, 16-wide heads whose
// int8 scores carry 1/127 of their range) measure 0.9986-0.9987 at int8 and
// keep 0.998.
TEST_P(HfGoldenTest, NarrowPrecisionsKeepTheirCosineGates) {
  const std::string dir = HfDir(GetParam());
  const NpyArray want = ReadNpy(dir + "/expected.npy");
  const bool decoder_family =
      GetParam().rfind("qwen", 0) == 0 || GetParam().rfind("gemma3", 0) == 0 ||
      GetParam().rfind("llama", 0) == 0 || GetParam().rfind("mistral", 0) == 0;
  for (const auto& [precision, gate] :
       {std::pair{Precision::kBf16, 0.9995}, {Precision::kInt8, decoder_family ? 0.998 : 0.999}}) {
    LoadOptions lo;
    lo.precision = precision;
    const Model model = Model::Load(dir, lo);
    const TokenBatch tb = LoadTokens(dir + "/tokens.txt", HasPairs(model));
    const int64_t d = model.d_model();
    const std::vector<int32_t> ids = tb.Padded(model.pad_token_id().value_or(0));
    const std::vector<int32_t> types = tb.PaddedTypes();
    std::vector<float> got(static_cast<size_t>(tb.batch * tb.seq * d));
    EncodeOptions o;
    o.lengths = tb.lengths.data();
    o.token_types = types.empty() ? nullptr : types.data();
    model.Encode(ids.data(), tb.batch, tb.seq, got.data(), o);
    double worst = 1;
    for (int64_t b = 0; b < tb.batch; ++b) {
      for (int64_t j = 0; j < tb.lengths[b]; ++j) {
        const float* x = got.data() + (b * tb.seq + j) * d;
        const float* y = want.data.data() + (b * tb.seq + j) * d;
        long double xy = 0, xx = 0, yy = 0;
        for (int64_t k = 0; k < d; ++k) {
          xy += static_cast<long double>(x[k]) * y[k];
          xx += static_cast<long double>(x[k]) * x[k];
          yy += static_cast<long double>(y[k]) * y[k];
        }
        worst = std::min(worst, static_cast<double>(xy / std::sqrt(xx * yy)));
      }
    }
    EXPECT_GE(worst, gate) << ToString(precision);
    std::printf("%s %s: worst cosine %.6f\n", GetParam().c_str(), ToString(precision), worst);
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryCase, HfGoldenTest,
    ::testing::Values("bert", "bert_prefixed_f16", "roberta_bf16", "xlm_roberta", "distilbert",
                      "distilbert_sinusoidal", "bert_sharded", "m2m_100", "bert_gelu_new",
                      "roberta_silu", "bert_pairs", "bert_seqcls", "roberta_seqcls",
                      "distilbert_seqcls", "st_dense", "marian", "marian_gelu",
                      "bert_gelu_pytorch_tanh", "nomic_bert", "nomic_bert_geglu_bf16", "modernbert",
                      "modernbert_bf16", "qwen3", "qwen3_bf16", "gemma3_text", "gemma3_text_bf16",
                      "new_gte", "new_gte_bf16", "mpnet", "mpnet_bf16", "qwen2", "qwen2_bf16",
                      "llama", "llama_bf16", "mistral", "mistral_bf16", "mpnet_seqcls",
                      "modernbert_seqcls", "modernbert_seqcls_cls"));

// The heads of *ForSequenceClassification checkpoints (and BERT's pooler):
// one row per line from its first token (or the mean of its tokens, as
// ModernBERT's classifier_pooling says), within 1e-4 of the reference's
// logits and pooler output; a line's row the same bits alone; the narrow
// precisions within their cosine gates.
struct HeadCase {
  const char* name;
  HeadOutput head;
  const char* expected;  // file of the reference's rows
};
void PrintTo(const HeadCase& c, std::ostream* os) { *os << c.name << " " << c.expected; }

class HfHeadTest : public ::testing::TestWithParam<HeadCase> {
 protected:
  // Every line of the case through the head: [lines, output_dim].
  static std::vector<float> Run(const Model& model, const TokenBatch& tb, HeadOutput head) {
    EncodeOptions o;
    o.head = head;
    std::vector<float> got(static_cast<size_t>(tb.batch * model.output_dim(o)));
    model.EncodePacked(tb.ids.data(), tb.offsets.data(), tb.batch, got.data(), o);
    return got;
  }
};

TEST_P(HfHeadTest, MatchesTheFloat64ReferenceAndIsTheSameBitsAlone) {
  const HeadCase& c = GetParam();
  const std::string dir = HfDir(c.name);
  const Model model = Model::Load(dir);
  const TokenBatch tb = LoadTokens(dir + "/tokens.txt");
  const NpyArray want = ReadNpy(dir + "/" + c.expected);
  EncodeOptions o;
  o.head = c.head;
  const int64_t width = model.output_dim(o);
  ASSERT_EQ(want.shape, (std::vector<int64_t>{tb.batch, width}));
  const std::vector<float> got = Run(model, tb, c.head);
  testing::MaxError err(width);
  for (size_t i = 0; i < got.size(); ++i) err.Add(static_cast<int64_t>(i), got[i], want.data[i]);
  EXPECT_TRUE(err <= testing::kGoldenOutputTol) << err;
  std::printf("%s %s: max abs error %.3g\n", c.name, c.expected, err.value());
  // The padded call, and each line alone: the same bits.
  const std::vector<int32_t> ids = tb.Padded(*model.pad_token_id());
  std::vector<float> padded(got.size());
  o.lengths = tb.lengths.data();
  model.Encode(ids.data(), tb.batch, tb.seq, padded.data(), o);
  EXPECT_EQ(padded, got);
  for (int64_t b = 0; b < tb.batch; ++b) {
    std::vector<float> alone(static_cast<size_t>(width));
    EncodeOptions one;
    one.head = c.head;
    model.Encode(tb.ids.data() + tb.offsets[b], 1, tb.lengths[b], alone.data(), one);
    EXPECT_TRUE(std::equal(alone.begin(), alone.end(), got.begin() + b * width)) << "line " << b;
  }
}

TEST_P(HfHeadTest, NarrowPrecisionsKeepTheirCosineGates) {
  const HeadCase& c = GetParam();
  const std::string dir = HfDir(c.name);
  const NpyArray want = ReadNpy(dir + "/" + c.expected);
  for (const auto& [precision, gate] :
       {std::pair{Precision::kBf16, 0.9995}, {Precision::kInt8, 0.999}}) {
    LoadOptions lo;
    lo.precision = precision;
    const Model model = Model::Load(dir, lo);
    const TokenBatch tb = LoadTokens(dir + "/tokens.txt");
    const std::vector<float> got = Run(model, tb, c.head);
    // Over all lines' values at once: a row of 2 or 3 logits is too short a
    // vector for a per-row cosine to mean much.
    long double xy = 0, xx = 0, yy = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      xy += static_cast<long double>(got[i]) * want.data[i];
      xx += static_cast<long double>(got[i]) * got[i];
      yy += static_cast<long double>(want.data[i]) * want.data[i];
    }
    const double cosine = static_cast<double>(xy / std::sqrt(xx * yy));
    EXPECT_GE(cosine, gate) << ToString(precision);
    std::printf("%s %s %s: cosine %.6f\n", c.name, c.expected, ToString(precision), cosine);
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryHead, HfHeadTest,
    ::testing::Values(HeadCase{"bert_seqcls", HeadOutput::kLogits, "expected_logits.npy"},
                      HeadCase{"bert_seqcls", HeadOutput::kPooler, "expected_pooler.npy"},
                      HeadCase{"roberta_seqcls", HeadOutput::kLogits, "expected_logits.npy"},
                      HeadCase{"distilbert_seqcls", HeadOutput::kLogits, "expected_logits.npy"},
                      HeadCase{"mpnet", HeadOutput::kPooler, "expected_pooler.npy"},
                      HeadCase{"mpnet_seqcls", HeadOutput::kLogits, "expected_logits.npy"},
                      // ModernBERT: mean pooling (bias-free head), and cls (biases).
                      HeadCase{"modernbert_seqcls", HeadOutput::kLogits, "expected_logits.npy"},
                      HeadCase{"modernbert_seqcls_cls", HeadOutput::kLogits,
                               "expected_logits.npy"}),
    [](const ::testing::TestParamInfo<HeadCase>& info) {
      return std::string(info.param.name) + "_" +
             (info.param.head == HeadOutput::kLogits ? "logits" : "pooler");
    });

// A stage the checkpoint has no tensors for: an error naming the stage and
// the tensor, from the C++ API and the CLI.
TEST(HfHeadTest, AStageWithoutItsTensorsIsNamed) {
  const auto expect = [](const std::string& name, HeadOutput head, const std::string& fragment) {
    const Model model = Model::Load(HfDir(name));
    EncodeOptions o;
    o.head = head;
    const int32_t ids[] = {3, 4, 5};
    std::vector<float> out(64);
    try {
      model.Encode(ids, 1, 3, out.data(), o);
      ADD_FAILURE() << name << ": no error; expected " << fragment;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
    EXPECT_THROW(model.output_dim(o), Error);
  };
  // A BertModel: its pooler, no classifier.
  expect("bert", HeadOutput::kLogits, "stage 'logits' needs a classification head");
  expect("bert", HeadOutput::kLogits, "no tensor 'classifier.weight'");
  expect("distilbert_seqcls", HeadOutput::kPooler,
         "stage 'pooler' needs BERT's pooler, and the model has none (no tensor "
         "'pooler.dense.weight')");
  expect("roberta_seqcls", HeadOutput::kPooler, "no tensor 'pooler.dense.weight'");
  // A head and pooling, or the embeddings: a usage error.
  const Model model = Model::Load(HfDir("bert_seqcls"));
  EncodeOptions o;
  o.head = HeadOutput::kLogits;
  o.pool = Pooling::kMean;
  EXPECT_THROW(model.output_dim(o), UsageError);
  o.pool = Pooling::kNone;
  o.embeddings_only = true;
  EXPECT_THROW(model.output_dim(o), UsageError);
  o.embeddings_only = false;
  EXPECT_EQ(model.output_dim(o), 3);
  o.head = HeadOutput::kPooler;
  EXPECT_EQ(model.output_dim(o), 32);
  EXPECT_EQ(model.output_dim(), 32);
}

// Other task heads also name their product "classifier" (token
// classification, multiple choice): a checkpoint whose "architectures" names
// no *ForSequenceClassification loads without it, its tensors unused.
TEST(HfHeadTest, OnlySequenceClassifiersGiveLogits) {
  const std::string dir = ::testing::TempDir() + "tokencls";
  fs::remove_all(dir);
  fs::copy(HfDir("bert_seqcls"), dir);
  std::string config;
  {
    std::ifstream in(dir + "/config.json");
    config.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string from = "BertForSequenceClassification";
  config.replace(config.find(from), from.size(), "BertForTokenClassification");
  std::ofstream(dir + "/config.json") << config;
  const Model model = Model::Load(dir);
  EncodeOptions o;
  o.head = HeadOutput::kLogits;
  EXPECT_THROW(model.output_dim(o), Error);
  o.head = HeadOutput::kPooler;
  EXPECT_EQ(model.output_dim(o), 32);
  ASSERT_EQ(model.load_warnings().size(), 1u);
  EXPECT_NE(model.load_warnings()[0].find("2 tensor(s) not used by the model, first 'classifier."),
            std::string::npos)
      << model.load_warnings()[0];
  fs::remove_all(dir);
}

// num_labels from config.json against the classifier's shape, named in the
// checkpoint's own tensor name.
TEST(HfHeadTest, NumLabelsIsCheckedAgainstTheClassifier) {
  const std::string dir = ::testing::TempDir() + "seqcls_hostile";
  fs::remove_all(dir);
  fs::copy(HfDir("bert_seqcls"), dir);
  std::string config;
  {
    std::ifstream in(dir + "/config.json");
    config.assign(std::istreambuf_iterator<char>(in), {});
  }
  const size_t at = config.find("\"2\": \"LABEL_2\"");
  ASSERT_NE(at, std::string::npos);
  std::string four = config;
  four.insert(at, "\"3\": \"LABEL_3\", ");
  std::ofstream(dir + "/config.json") << four;
  try {
    Model::Load(dir);
    ADD_FAILURE() << "loaded";
  } catch (const Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("tensor 'classifier.weight': got [3, 32], expected [4, 32]"),
        std::string::npos)
        << e.what();
  }
  fs::remove_all(dir);
}

// A line longer than the model's positions: an error naming the line and the
// limit, or with --truncate its first tokens, as the line cut by hand.
TEST(HfLengthTest, ALongLineIsNamedOrTruncated) {
  const std::string dir = HfDir("roberta_bf16");  // 40 rows from position 2: 38 tokens
  std::string long_line, cut;
  for (int i = 0; i < 45; ++i) long_line += std::to_string(3 + i % 50) + " ";
  for (int i = 0; i < 38; ++i) cut += std::to_string(3 + i % 50) + " ";
  const std::string file = ::testing::TempDir() + "long.txt";
  std::ofstream(file) << "5 6 7\n" << long_line << "\n";
  const auto r = testing::RunPhasor("encode --model " + dir + " --tokens-file " + file);
  EXPECT_EQ(r.exit_code, 1);
  testing::ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find(file + ": line 2 has 45 tokens, more than the 38 positions of the model's "
                              "learned positional table (max_len 40, from position 2); --truncate"),
            std::string::npos)
      << r.err;
  const std::string a = ::testing::TempDir() + "t.npy", b = ::testing::TempDir() + "c.npy";
  const auto t = testing::RunPhasor("encode --model " + dir + " --tokens-file " + file +
                                    " --truncate --layout packed --output " + a);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.err.find("phasor: warning: " + file + ": line 2 cut to the 38 positions"),
            std::string::npos)
      << t.err;
  std::ofstream(file) << "5 6 7\n" << cut << "\n";
  ASSERT_EQ(testing::RunPhasor("encode --model " + dir + " --tokens-file " + file +
                               " --layout packed --output " + b)
                .exit_code,
            0);
  EXPECT_EQ(ReadNpy(a).data, ReadNpy(b).data);
  EXPECT_EQ(ReadNpy(a).shape, (std::vector<int64_t>{41, 32}));
  EXPECT_EQ(Model::Load(dir).max_sequence_length(), 38);
}

// A copy of the bert case with config.json edited or a file removed.
class HfHostileTest : public testing::HfCopyTest {
 protected:
  void SetUp() override { CopyCase("bert"); }
};

TEST_F(HfHostileTest, UnknownModelTypeListsTheSupportedOnes) {
  WriteConfig("\"model_type\": \"bert\"", "\"model_type\": \"gpt2\"");
  ExpectLoadError(
      "key 'model_type': 'gpt2' is not an architecture phasor reads; it reads bert, "
      "roberta, xlm-roberta, camembert, distilbert, marian, m2m_100");
}

TEST_F(HfHostileTest, UnsupportedKeysNameKeyAndValue) {
  WriteConfig("\"absolute\"", "\"relative_key\"");
  ExpectLoadError(
      "config.json: key 'position_embedding_type': 'relative_key' is not supported, "
      "expected 'absolute'");
  WriteConfig("\"hidden_act\": \"gelu\"", "\"hidden_act\": \"quick_gelu\"");
  ExpectLoadError(
      "key 'hidden_act': 'quick_gelu' is not supported, expected 'gelu', 'relu', "
      "'gelu_new', 'gelu_pytorch_tanh', 'silu' or 'swish'");
  WriteConfig("\"hidden_size\": 32", "\"hidden_size\": \"32\"");
  ExpectLoadError("key 'hidden_size': expected an integer, found");
  WriteConfig("\"hidden_size\": 32", "\"hidden_size\": 48");
  ExpectLoadError("'embeddings.word_embeddings.weight': got [60, 32], expected [60, 48]");
}

TEST_F(HfHostileTest, ACutConfigIsNamed) {
  std::ofstream(dir_ + "/config.json") << config_.substr(0, config_.size() / 2);
  ExpectLoadError("config.json: not valid JSON");
}

TEST_F(HfHostileTest, AMissingTensorIsNamed) {
  // The same file less one tensor: rewritten through phasor's own writer.
  Weights w = LoadSafetensors(dir_ + "/model.safetensors");
  Weights kept("kept");
  for (const std::string& name : w.Names()) {
    if (name == "encoder.layer.1.attention.self.key.bias") continue;
    const Tensor& t = w.Get(name);
    kept.Add(name, t.shape,
             std::vector<float>(w.Floats(name), w.Floats(name) + NumElements(t.shape)));
  }
  SaveSafetensors(dir_ + "/model.safetensors", kept);
  ExpectLoadError("missing tensor 'encoder.layer.1.attention.self.key.bias'");
}

TEST(HfShardedTest, AnIndexThatLiesIsNamed) {
  const std::string dir = ::testing::TempDir() + "hf_sharded";
  fs::remove_all(dir);
  fs::copy(HfDir("bert_sharded"), dir);
  std::string index;
  {
    std::ifstream in(dir + "/model.safetensors.index.json");
    index.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto expect = [&](const std::string& text, const std::string& fragment) {
    std::ofstream(dir + "/model.safetensors.index.json") << text;
    try {
      Model::Load(dir);
      ADD_FAILURE() << "loaded; expected " << fragment;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  std::string escape = index;
  escape.replace(escape.find("\"model-00002-of-00003.safetensors\""), 34, "\"../x.safetensors\"");
  expect(escape, "names the file '../x.safetensors', expected a file name beside the index");
  std::string moved = index;  // a tensor the map puts in another shard
  const size_t at = moved.find("\"model-00001-of-00003.safetensors\"");
  moved.replace(at, 34, "\"model-00002-of-00003.safetensors\"");
  expect(moved, "is not mapped to this file by");
  expect(index.substr(0, index.size() / 2), "model.safetensors.index.json: not valid JSON");
  fs::remove(dir + "/model-00003-of-00003.safetensors");
  expect(index, "model-00003-of-00003.safetensors");
  fs::remove_all(dir);
}

TEST_F(HfHostileTest, APickleOnlyFolderSaysHowToConvertIt) {
  fs::rename(dir_ + "/model.safetensors", dir_ + "/pytorch_model.bin");
  ExpectLoadError("convert it with tools/convert_bin_to_safetensors.py");
}

// Marian: a copy of the marian case (MarianMTModel: "model." names, the LM
// head, final_logits_bias and a decoder beside the encoder) with config.json
// edited or a tensor changed.
class MarianTest : public testing::HfCopyTest {
 protected:
  void SetUp() override { CopyCase("marian"); }
  // Rewrites model.safetensors through phasor's own writer: edit(name, values)
  // may change a tensor's values; a tensor named skip is left out.
  template <typename Edit>
  void RewriteWeights(const std::string& skip, Edit edit) {
    Weights w = LoadSafetensors(dir_ + "/model.safetensors");
    Weights kept("kept");
    for (const std::string& name : w.Names()) {
      if (name == skip) continue;
      const Tensor& t = w.Get(name);
      std::vector<float> values(w.Floats(name), w.Floats(name) + NumElements(t.shape));
      edit(name, values);
      kept.Add(name, t.shape, std::move(values));
    }
    SaveSafetensors(dir_ + "/model.safetensors", kept);
  }
};

// The decoder, the LM head, final_logits_bias and a stored sinusoid that is
// phasor's own are read without a word.
TEST(MarianGoldenTest, WhatPhasorDoesNotRunIsLeftQuietly) {
  for (const char* name : {"marian", "marian_gelu"}) {
    const Model model = Model::Load(HfDir(name));
    EXPECT_TRUE(model.load_warnings().empty()) << name << ": " << model.load_warnings()[0];
    EXPECT_EQ(model.position_offset(), 0) << name;
    EXPECT_EQ(model.max_sequence_length(), 40) << name;  // max_position_embeddings, any PE mode
  }
}

TEST_F(MarianTest, UnsupportedKeysNameKeyAndValue) {
  WriteConfig("\"normalize_before\": false", "\"normalize_before\": true");
  ExpectLoadError("config.json: key 'normalize_before': true is not supported, expected false");
  WriteConfig("\"static_position_embeddings\": true", "\"static_position_embeddings\": false");
  ExpectLoadError("key 'static_position_embeddings': false is not supported, expected true");
  WriteConfig("\"add_final_layer_norm\": false", "\"add_final_layer_norm\": 1");
  ExpectLoadError("key 'add_final_layer_norm': expected true or false, found");
  WriteConfig("\"normalize_embedding\": false", "\"layernorm_embedding\": true");
  ExpectLoadError("key 'layernorm_embedding': true is not supported, expected false");
  WriteConfig("\"activation_function\": \"swish\"", "\"activation_function\": \"quick_gelu\"");
  ExpectLoadError(
      "key 'activation_function': 'quick_gelu' is not supported, expected 'swish', 'silu', "
      "'gelu', 'gelu_new' or 'relu'");
  WriteConfig("\"d_model\": 32", "\"d_model\": 48");
  ExpectLoadError("tensor 'model.shared.weight': got [60, 32], expected [60, 48]");
}

TEST_F(MarianTest, AMissingTensorIsNamed) {
  RewriteWeights("model.encoder.layers.1.fc2.bias", [](const std::string&, std::vector<float>&) {});
  ExpectLoadError("missing tensor 'model.encoder.layers.1.fc2.bias'");
  RewriteWeights("model.shared.weight", [](const std::string&, std::vector<float>&) {});
  ExpectLoadError("missing tensor 'model.shared.weight'");
}

// A stored encoder sinusoid is checked against phasor's, never used: one
// warning with the largest difference, and the outputs stay the reference's.
TEST(MarianStoredTableTest, ADifferentStoredTableIsReportedOnceAndNotUsed) {
  const std::string dir = ::testing::TempDir() + "hf_marian_table";
  fs::remove_all(dir);
  fs::copy(HfDir("marian_gelu"), dir);
  const std::string name = "encoder.embed_positions.weight";
  Weights w = LoadSafetensors(dir + "/model.safetensors");
  Weights edited("edited");
  for (const std::string& n : w.Names()) {
    const Tensor& t = w.Get(n);
    std::vector<float> values(w.Floats(n), w.Floats(n) + NumElements(t.shape));
    if (n == name) values[3 * 32 + 5] += 0.25f;  // position 3
    edited.Add(n, t.shape, std::move(values));
  }
  SaveSafetensors(dir + "/model.safetensors", edited);
  const auto r = testing::RunPhasor("encode --model " + dir + " --tokens-file " + dir +
                                    "/tokens.txt --output " + dir + "/out.npy");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string want = "phasor: warning: " + dir + "/model.safetensors: tensor '" + name +
                           "' differs from the sinusoid phasor computes by up to 0.25 "
                           "(position 3), more than the 0.001 its stored format's rounding allows";
  EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
  EXPECT_EQ(r.err.rfind("phasor: warning:"), 0u) << r.err;  // once, the only one
  const NpyArray got = ReadNpy(dir + "/out.npy"), ref = ReadNpy(dir + "/expected.npy");
  const TokenBatch tb = LoadTokens(dir + "/tokens.txt");
  EXPECT_TRUE(testing::RealTokenError(got.data.data(), ref.data.data(), tb, 32) <=
              testing::kGoldenOutputTol);
  fs::remove_all(dir);
}

// max_position_embeddings bounds a line whatever the PE mode: the model's own
// sinusoid table (Marian's, DistilBERT's sinusoidal_pos_embds) has that many
// rows and does not grow.
class SinusoidTableLengthTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SinusoidTableLengthTest, ALineLongerThanMaxPositionEmbeddingsIsNamedOrTruncated) {
  const std::string dir = HfDir(GetParam());
  std::string long_line, cut;
  for (int i = 0; i < 45; ++i) long_line += std::to_string(1 + i % 50) + " ";
  for (int i = 0; i < 40; ++i) cut += std::to_string(1 + i % 50) + " ";
  const std::string file = ::testing::TempDir() + "marian_long.txt";
  std::ofstream(file) << "5 6 7\n" << long_line << "\n";
  for (const char* mode : {"auto", "on_the_fly", "cached"}) {
    const auto r = testing::RunPhasor("encode --model " + dir + " --pe-mode " + mode +
                                      " --tokens-file " + file);
    EXPECT_EQ(r.exit_code, 1) << mode;
    testing::ExpectOneErrorLine(r);
    EXPECT_NE(r.err.find(file + ": line 2 has 45 tokens, more than the 40 positions of the "
                                "model's max_position_embeddings (40, from position 0)"),
              std::string::npos)
        << r.err;
  }
  const std::string a = ::testing::TempDir() + "mt.npy", b = ::testing::TempDir() + "mc.npy";
  ASSERT_EQ(testing::RunPhasor("encode --model " + dir + " --tokens-file " + file +
                               " --truncate --layout packed --output " + a)
                .exit_code,
            0);
  std::ofstream(file) << "5 6 7\n" << cut << "\n";
  ASSERT_EQ(testing::RunPhasor("encode --model " + dir + " --tokens-file " + file +
                               " --layout packed --output " + b)
                .exit_code,
            0);
  EXPECT_EQ(ReadNpy(a).data, ReadNpy(b).data);
  EXPECT_EQ(ReadNpy(a).shape, (std::vector<int64_t>{43, 32}));
}

INSTANTIATE_TEST_SUITE_P(MarianAndDistilBert, SinusoidTableLengthTest,
                         ::testing::Values("marian", "distilbert_sinusoidal"));

}  // namespace
}  // namespace phasor

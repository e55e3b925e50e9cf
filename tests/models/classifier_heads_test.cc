// The classification heads of ModernBERT and MPNet checkpoints: what the
// head needs and the checkpoint lacks or gets wrong (a tensor missing or
// misshapen, a classifier_pooling or classifier_activation phasor does not
// run) is refused at load with one line naming the file and the key or
// tensor; a masked LM's head is not taken for a classifier. The golden logits
// are checked in architectures_test.cc (HfHeadTest).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/safetensors.h"
#include "models/phasor.h"
#include "tests/support/hf_copy.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

class ClassifierHeadTest : public testing::HfCopyTest {
 protected:
  // model.safetensors of the copy with tensor name taken out, or replaced by
  // one of shape (zeros) when shape is not empty.
  void EditTensor(const std::string& name, const Shape& shape = {}) {
    const std::string path = dir_ + "/model.safetensors";
    Weights w = LoadSafetensors(path);
    w.Take(name);
    if (!shape.empty()) {
      w.Add(name, shape, std::vector<float>(static_cast<size_t>(NumElements(shape))));
    }
    SaveSafetensors(path, w);
  }
  void Refused(const std::string& from, const std::string& to, const std::string& fragment) {
    WriteConfig(from, to);
    ExpectLoadError(fragment);
  }
};

TEST_F(ClassifierHeadTest, ModernBertConfigKeysItDoesNotRunAreNamed) {
  CopyCase("modernbert_seqcls");
  Refused("\"classifier_pooling\": \"mean\"", "\"classifier_pooling\": \"max\"",
          "config.json: key 'classifier_pooling': 'max' is not supported, expected 'cls' or "
          "'mean'");
  Refused("\"classifier_activation\": \"gelu\"", "\"classifier_activation\": \"mish\"",
          "config.json: key 'classifier_activation': 'mish' is not supported, expected 'gelu'");
  // classifier_bias true asks for head.dense.bias, which this checkpoint lacks.
  Refused("\"classifier_bias\": false", "\"classifier_bias\": true",
          "model.safetensors: missing tensor 'head.dense.bias'");
  // More labels than the classifier has.
  Refused("\"2\": \"LABEL_2\"", "\"2\": \"LABEL_2\", \"3\": \"LABEL_3\"",
          "model.safetensors: tensor 'classifier.weight': got [3, 32], expected [4, 32]");
}

TEST_F(ClassifierHeadTest, ModernBertHeadTensorsAreRequiredAndChecked) {
  for (const char* name : {"head.dense.weight", "head.norm.weight", "classifier.bias"}) {
    CopyCase("modernbert_seqcls");
    EditTensor(name);
    ExpectLoadError(std::string("model.safetensors: missing tensor '") + name + "'");
  }
  CopyCase("modernbert_seqcls");
  EditTensor("head.dense.weight", {32, 16});
  ExpectLoadError("model.safetensors: tensor 'head.dense.weight': got [32, 16], expected [32, 32]");
  CopyCase("modernbert_seqcls_cls");
  EditTensor("head.norm.bias", {31});
  ExpectLoadError("model.safetensors: tensor 'head.norm.bias': got [31], expected [32]");
  // A classifier named by "architectures" whose classifier is missing: named,
  // not dropped as a masked LM's head.
  CopyCase("modernbert_seqcls");
  EditTensor("classifier.weight");
  ExpectLoadError("model.safetensors: missing tensor 'classifier.weight'");
}

TEST_F(ClassifierHeadTest, MpnetHeadTensorsAreRequiredAndChecked) {
  CopyCase("mpnet_seqcls");
  EditTensor("classifier.dense.weight");
  ExpectLoadError("model.safetensors: missing tensor 'classifier.dense.weight'");
  CopyCase("mpnet_seqcls");
  EditTensor("classifier.out_proj.weight", {2, 32});
  ExpectLoadError(
      "model.safetensors: tensor 'classifier.out_proj.weight': got [2, 32], expected [3, 32]");
}

// From the CLI: one line, exit 1.
TEST_F(ClassifierHeadTest, TheCliPrintsOneLine) {
  CopyCase("modernbert_seqcls");
  WriteConfig("\"classifier_pooling\": \"mean\"", "\"classifier_pooling\": \"first\"");
  const auto r =
      testing::RunPhasor("encode --model " + dir_ + " --tokens \"5 6 7\" --stage logits");
  EXPECT_EQ(r.exit_code, 1);
  testing::ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("config.json: key 'classifier_pooling': 'first' is not supported"),
            std::string::npos)
      << r.err;
}

// ModernBertForMaskedLM's head (head.dense, head.norm, decoder) is not a
// classifier's: no logits, no tensor left unused; MPNet's pooler stays the
// pooler of an MPNetModel.
TEST(ClassifierHeads, OtherHeadsAreNotClassifiers) {
  for (const char* name : {"modernbert_bf16", "mpnet"}) {
    const Model model = Model::Load(testing::HfDir(name));
    EncodeOptions o;
    o.head = HeadOutput::kLogits;
    EXPECT_THROW(model.output_dim(o), Error) << name;
    EXPECT_TRUE(model.load_warnings().empty()) << name << ": " << model.load_warnings()[0];
  }
  const Model mpnet = Model::Load(testing::HfDir("mpnet"));
  EncodeOptions o;
  o.head = HeadOutput::kPooler;
  EXPECT_EQ(mpnet.output_dim(o), 32);
}

}  // namespace
}  // namespace phasor

// ModelFolder: a folder opened once, every JSON file read by one rule, the
// weights found one way, prompts taken at Open.
#include "engine/model_folder.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/support/error_of.h"
#include "tests/support/hf_copy.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

namespace fs = std::filesystem;
using testing::ErrorOf;
using testing::HfDir;
using testing::WriteFile;

// A fresh copy of a golden case (tests/data/hf) to break.
class ModelFolderTest : public ::testing::Test {
 protected:
  void Copy(const std::string& name) {
    dir_ = ::testing::TempDir() + "model_folder_" + name;
    fs::remove_all(dir_);
    fs::copy(HfDir(name), dir_, fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string OpenError() const {
    return ErrorOf([&] { ModelFolder::Open(dir_); });
  }
  std::string dir_;
};

TEST_F(ModelFolderTest, ReadsTheFolderOnceAndAnswersFromMemory) {
  Copy("st_dense");
  WriteFile(dir_ + "/config_sentence_transformers.json",
            R"({"prompts": {"query": "query: ", "passage": ""}, "similarity_fn_name": "dot"})");
  const auto folder = ModelFolder::Open(dir_);
  // Gone from the disk after Open: nothing below reads the folder again.
  for (const char* name :
       {"config.json", "modules.json", "config_sentence_transformers.json",
        "sentence_bert_config.json", "1_Pooling/config.json", "2_Dense/config.json"}) {
    ASSERT_TRUE(fs::remove(dir_ + "/" + name)) << name;
  }
  EXPECT_EQ(folder->Prompt("query"), "query: ");
  EXPECT_EQ(folder->Prompt("passage"), "");
  EXPECT_EQ(folder->similarity_fn_name(), "dot");
  EXPECT_NE(folder->config_text().find("\"model_type\""), std::string::npos);
  ASSERT_NE(folder->Json("2_Dense/config.json"), nullptr);
  EXPECT_TRUE(folder->Json("2_Dense/config.json")->contains("out_features"));
  ASSERT_EQ(folder->modules().size(), 4u);
  EXPECT_EQ(folder->modules()[2].path, "2_Dense");
  EXPECT_EQ(folder->weights().files, std::vector<std::string>{dir_ + "/model.safetensors"});
  EXPECT_TRUE(folder->weights().index.empty());
}

TEST_F(ModelFolderTest, AFifoNamedConfigJsonIsRefusedWithoutOpeningIt) {
  Copy("bert");
  fs::remove(dir_ + "/config.json");
  ASSERT_EQ(mkfifo((dir_ + "/config.json").c_str(), 0600), 0);
  // Opening a FIFO for reading would block this test forever.
  EXPECT_EQ(OpenError(), dir_ + "/config.json: is not a regular file (a FIFO)");
  const testing::RunResult r = testing::RunPhasor("encode --model " + dir_ + " --tokens '1 2'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "phasor: error: " + dir_ + "/config.json: is not a regular file (a FIFO)\n");
}

TEST_F(ModelFolderTest, AFolderNamedLikeAJsonFileIsRefused) {
  Copy("st_mean");
  fs::remove(dir_ + "/1_Pooling/config.json");
  fs::create_directory(dir_ + "/1_Pooling/config.json");
  EXPECT_EQ(OpenError(), dir_ + "/1_Pooling/config.json: is not a regular file (a folder)");
}

TEST_F(ModelFolderTest, AJsonFileOverTheCapIsRefusedBeforeItIsRead) {
  Copy("bert");
  const std::string path = dir_ + "/tokenizer_config.json";
  WriteFile(path, "{}");
  // Sparse: the size is checked before a byte is read.
  ASSERT_EQ(truncate(path.c_str(), kMaxFolderJsonBytes + 1), 0);
  EXPECT_EQ(OpenError(), path + ": file is " + std::to_string(kMaxFolderJsonBytes + 1) +
                             " bytes, more than the " + std::to_string(kMaxFolderJsonBytes) +
                             " a JSON file of a model folder may hold");
  const testing::RunResult r = testing::RunPhasor("encode --model " + dir_ + " --tokens '1 2'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "phasor: error: " + OpenError() + "\n");
  ASSERT_EQ(truncate(path.c_str(), kMaxFolderJsonBytes), 0);  // at the cap: read, then parsed
  EXPECT_EQ(OpenError(), path + ": not valid JSON: a NUL byte at offset 2");
}

TEST_F(ModelFolderTest, EveryJsonFileIsParsedStrictlyNamingIt) {
  Copy("st_mean");
  WriteFile(dir_ + "/sentence_bert_config.json", R"({"max_seq_length": 8, "max_seq_length": 9})");
  EXPECT_NE(OpenError().find(dir_ + "/sentence_bert_config.json: "), std::string::npos);
  EXPECT_NE(OpenError().find("max_seq_length"), std::string::npos) << OpenError();
  fs::remove(dir_ + "/sentence_bert_config.json");
  WriteFile(dir_ + "/special_tokens_map.json", "{\"unk_token\": ");
  EXPECT_EQ(OpenError().rfind(dir_ + "/special_tokens_map.json: not valid JSON: ", 0), 0u)
      << OpenError();
}

TEST_F(ModelFolderTest, ModulesAreCheckedAndStayInsideTheFolder) {
  Copy("st_mean");
  WriteFile(dir_ + "/modules.json", R"([{"path": "../elsewhere", "type": "x"}])");
  EXPECT_EQ(OpenError(), dir_ +
                             "/modules.json: module 0: key 'path': '../elsewhere' is not a folder "
                             "beside modules.json");
  WriteFile(dir_ + "/modules.json", R"([{"path": "1_Pooling"}])");
  EXPECT_EQ(OpenError(), dir_ + "/modules.json: module 0: expected an object with a string 'type'");
  WriteFile(dir_ + "/modules.json", R"({"path": "1_Pooling"})");
  EXPECT_EQ(OpenError(), dir_ + "/modules.json: expected a JSON array of modules");
}

TEST_F(ModelFolderTest, PromptsAreCheckedAtOpenAndAMissingOneIsNamed) {
  Copy("st_mean");
  const std::string path = dir_ + "/config_sentence_transformers.json";
  EXPECT_EQ(ErrorOf([&] { ModelFolder::Open(dir_)->Prompt("query"); }),
            path + ": no such file (a prompt is read from its \"prompts\")");
  WriteFile(path, R"({"prompts": {"query": "q: ", "doc": "d: "}})");
  EXPECT_EQ(ErrorOf([&] { ModelFolder::Open(dir_)->Prompt("passage"); }),
            path + ": prompts: no prompt \"passage\" (it has doc, query)");
  WriteFile(path, R"({"prompts": {}})");
  EXPECT_EQ(ErrorOf([&] { ModelFolder::Open(dir_)->Prompt("query"); }),
            path + ": prompts: no prompt \"query\" (it has none)");
  WriteFile(path, R"({"prompts": {"query": 3}})");
  EXPECT_EQ(OpenError(), path + ": key 'prompts.query': expected a string, found 3");
  WriteFile(path, R"({"prompts": ["query"]})");
  EXPECT_EQ(OpenError(),
            path + ": key 'prompts': expected an object of strings, found [\"query\"]");
}

TEST_F(ModelFolderTest, TheWeightsAreFoundOneWay) {
  Copy("bert_sharded");
  const auto folder = ModelFolder::Open(dir_);
  const WeightFiles& w = folder->weights();
  EXPECT_EQ(w.index, dir_ + "/model.safetensors.index.json");
  EXPECT_EQ(w.files, (std::vector<std::string>{dir_ + "/model-00001-of-00003.safetensors",
                                               dir_ + "/model-00002-of-00003.safetensors",
                                               dir_ + "/model-00003-of-00003.safetensors"}));
  EXPECT_EQ(w.shard_of.at("bert.embeddings.position_ids"),
            dir_ + "/model-00001-of-00003.safetensors");
  WriteFile(dir_ + "/model.safetensors.index.json", R"({"weight_map": {"x": 3}})");
  EXPECT_EQ(OpenError(), dir_ +
                             "/model.safetensors.index.json: key 'weight_map': tensor 'x': "
                             "expected a file name, found 3");
  fs::remove(dir_ + "/model.safetensors.index.json");
  EXPECT_EQ(ErrorOf([&] { ModelFolder::Open(dir_)->weights(); }),
            "model directory " + dir_ + " has no model.safetensors");
  EXPECT_EQ(ErrorOf([&] { ModelFolder::Open(dir_)->config_text(); }), "");
  ASSERT_EQ(mkfifo((dir_ + "/model.safetensors").c_str(), 0600), 0);
  EXPECT_EQ(ErrorOf([&] { ModelFolder::Open(dir_)->weights(); }),
            dir_ + "/model.safetensors: is not a regular file (a FIFO)");
  fs::remove(dir_ + "/model.safetensors");
  fs::remove(dir_ + "/config.json");
  EXPECT_EQ(ErrorOf([&] { ModelFolder::Open(dir_)->config_text(); }),
            "model directory " + dir_ + " has no config.json");
}

}  // namespace
}  // namespace phasor

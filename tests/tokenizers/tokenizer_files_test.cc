// Reading a tokenizer folder's files (tokenizer_files.cc, json_reader.cc):
// a broken tokenizer.json or vocab.txt is one message naming the file and the
// key, line or place; what nlohmann reads and simdjson alone does not (an
// integer past 64 bits) still loads; a vocab.txt of MPNetTokenizer reads as
// MPNet's. The files are the hand tokenizer of tests/data/tokenizers/hand,
// edited as text, or small files written here.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "engine/error.h"
#include "tests/support/error_of.h"
#include "tests/support/paths.h"
#include "tests/support/run.h"
#include "tokenizers/tokenizer.h"

namespace phasor::tokenizers {
namespace {

using testing::ErrorOf;

std::string HandText() {
  return testing::ReadFile(std::string(phasor::testing::kTestDataDir) +
                           "/tokenizers/hand/tokenizer.json");
}

// text with its first from replaced by to (which must be there).
std::string Edited(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// A folder holding file with text; its path.
std::string Folder(const std::string& name, const std::string& file, const std::string& text) {
  const std::string dir = ::testing::TempDir() + "tokenizer_files_test_" + name;
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  std::ofstream(dir + "/" + file, std::ios::binary) << text;
  return dir;
}

std::string LoadError(const std::string& name, const std::string& text) {
  const std::string dir = Folder(name, "tokenizer.json", text);
  return ErrorOf([&] { Tokenizer::Load(dir); });
}

TEST(TokenizerFilesTest, TheHandFileLoadsAsText) {
  const std::string dir = Folder("hand", "tokenizer.json", HandText());
  const auto t = Tokenizer::Load(dir);
  EXPECT_EQ(t->TokenToId("##able"), 9);
  EXPECT_EQ(t->TokenToId("caf"), 13);
  EXPECT_EQ(t->TokenToId("cafe"), std::nullopt);
}

TEST(TokenizerFilesTest, ARepeatedKeyIsNamedWithItsFile) {
  const std::string file = ::testing::TempDir() + "tokenizer_files_test_";
  // In the vocabulary (read in place, not as a tree).
  EXPECT_EQ(
      LoadError("vocab_twice", Edited(HandText(), "\"hello\": 5,", "\"hello\": 5, \"hello\": 15,")),
      file +
          "vocab_twice/tokenizer.json: model.vocab[\"hello\"]: the token appears twice, "
          "expected once");
  // At the top, in the model, and deeper down.
  EXPECT_EQ(LoadError("top_twice", Edited(HandText(), "\"version\": \"1.0\",",
                                          "\"version\": \"1.0\", \"version\": \"1.0\",")),
            file + "top_twice/tokenizer.json: key 'version' appears twice, expected once");
  EXPECT_EQ(LoadError("model_twice",
                      Edited(HandText(), "\"vocab\": {", "\"vocab\": {\"a\": 0}, \"vocab\": {")),
            file + "model_twice/tokenizer.json: key 'model.vocab' appears twice, expected once");
  EXPECT_EQ(
      LoadError("deep_twice", Edited(HandText(), "\"ids\": [2],", "\"ids\": [2], \"ids\": [2],")),
      file +
          "deep_twice/tokenizer.json: key 'post_processor.special_tokens.[CLS].ids' "
          "appears twice, expected once");
  EXPECT_EQ(
      LoadError("list_twice", Edited(HandText(), "{\"id\": 0, \"content\": \"[PAD]\",",
                                     "{\"id\": 0, \"id\": 0, \"content\": \"[PAD]\",")),
      file + "list_twice/tokenizer.json: key 'added_tokens[].id' appears twice, expected once");
}

TEST(TokenizerFilesTest, BrokenJsonSaysWhere) {
  const std::string file = ::testing::TempDir() + "tokenizer_files_test_syntax/tokenizer.json";
  const std::string error =
      LoadError("syntax", Edited(HandText(), "\"world\": 6,", "\"world\": 6,,"));
  EXPECT_EQ(error.rfind(file + ": not valid JSON: [json.exception.parse_error.101] parse error at "
                               "line 28, column",
                        0),
            0u)
      << error;
  std::string deep = "{\"version\": ";
  for (int i = 0; i < 20; ++i) deep += "[";
  for (int i = 0; i < 20; ++i) deep += "]";
  EXPECT_NE(LoadError("deep", deep + "}").find("tokenizer.json: nested deeper than 16 levels"),
            std::string::npos);
  EXPECT_NE(LoadError("array", "[1, 2]").find("tokenizer.json: expected a JSON object"),
            std::string::npos);
  EXPECT_NE(LoadError("no_model", "{\"version\": \"1.0\"}").find("tokenizer.json: model: missing"),
            std::string::npos);
}

// simdjson refuses an integer past 64 bits; nlohmann reads it as a double, and
// so does phasor, as before.
TEST(TokenizerFilesTest, AnIntegerPast64BitsStillLoads) {
  const std::string big = "100000000000000000000000000000";
  const std::string dir =
      Folder("big", "tokenizer.json",
             Edited(HandText(), "\"version\": \"1.0\",", "\"version\": " + big + ","));
  std::ofstream(dir + "/tokenizer_config.json") << "{\"model_max_length\": " + big + "}";
  const auto t = Tokenizer::Load(dir);
  EXPECT_EQ(t->TokenToId("world"), 6);
  EXPECT_EQ(t->model_max_length(), 0);  // "no bound", as transformers writes it
}

TEST(TokenizerFilesTest, AMergesTxtLineThatIsNotUtf8IsNamed) {
  const std::string dir = Folder("merges_txt", "merges.txt", "#version: 0.2\na b\n\xc3 b\n");
  std::ofstream(dir + "/vocab.json") << "{\"a\": 0, \"b\": 1, \"ab\": 2}";
  EXPECT_EQ(ErrorOf([&] { Tokenizer::Load(dir); }),
            dir + "/merges.txt: line 3, byte offset 0: invalid UTF-8");
}

TEST(TokenizerFilesTest, AVocabTxtLineThatIsNotUtf8IsNamed) {
  const std::string dir = Folder("vocab_txt", "vocab.txt", "[PAD]\n[UNK]\nab\xff\n[CLS]\n[SEP]\n");
  EXPECT_EQ(ErrorOf([&] { Tokenizer::Load(dir); }),
            dir + "/vocab.txt: line 3, byte offset 2: invalid UTF-8");
}

// vocab.txt with tokenizer_class MPNetTokenizer: MPNetConverter's template
// ("<s> A </s> </s> B </s>", B and its </s> of type 1) and <mask> taking the
// space before it, although the config writes it as a plain string.
TEST(TokenizerFilesTest, AnMPNetVocabTxtTakesMPNetsTemplate) {
  const std::string dir = Folder("mpnet_vocab_txt", "vocab.txt",
                                 "<s>\n<pad>\n</s>\n<unk>\n[PAD]\n[UNK]\nhello\nworld\n<mask>\n");
  std::ofstream(dir + "/tokenizer_config.json")
      << R"({"tokenizer_class": "MPNetTokenizer", "do_lower_case": true, "bos_token": "<s>",
            "eos_token": "</s>", "cls_token": "<s>", "sep_token": "</s>", "unk_token": "[UNK]",
            "pad_token": "<pad>", "mask_token": "<mask>"})";
  const auto t = Tokenizer::Load(dir);
  const Encoding pair = t->EncodePair("Hello", "world", TokenizeOptions{});
  EXPECT_EQ(pair.ids, (std::vector<int32_t>{0, 6, 2, 2, 7, 2}));
  EXPECT_EQ(pair.types, (std::vector<int32_t>{0, 0, 0, 0, 1, 1}));
  EXPECT_EQ(pair.pair_start, 4);
  EXPECT_EQ(t->Encode("hello", TokenizeOptions{}).ids, (std::vector<int32_t>{0, 6, 2}));
  TokenizeOptions offsets;
  offsets.offsets = OffsetUnit::kCodePoints;
  const Encoding mask = t->Encode("hello <mask>", offsets);
  EXPECT_EQ(mask.ids, (std::vector<int32_t>{0, 6, 8, 2}));
  ASSERT_EQ(mask.offsets.size(), 4u);
  EXPECT_EQ(mask.offsets[2], (std::pair<int64_t, int64_t>{5, 12}));  // lstrip: the space too
}

TEST(TokenizerFilesTest, AnMPNetVocabTxtWithoutItsSepTokenIsNamed) {
  const std::string dir =
      Folder("mpnet_vocab_txt_no_sep", "vocab.txt", "<s>\n<pad>\n<unk>\n[UNK]\nhello\n");
  std::ofstream(dir + "/tokenizer_config.json") << R"({"tokenizer_class": "MPNetTokenizer"})";
  EXPECT_EQ(ErrorOf([&] { Tokenizer::Load(dir); }), dir + "/vocab.txt: has no token \"</s>\"");
}

}  // namespace
}  // namespace phasor::tokenizers

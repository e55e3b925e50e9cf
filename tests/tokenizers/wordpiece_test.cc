// WordPiece against the JS port of tokenizers (ids in
// tests/data/tokenizers/spm_unit/cases.json, made by make_fixtures.py there):
// greedy longest match, "##" continuations, unknown words, words longer than
// max_input_chars_per_word counted in code points.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/error_of.h"
#include "tests/support/paths.h"
#include "tokenizers/model.h"

namespace phasor::tokenizers {
namespace {

using testing::ErrorOf;

nlohmann::json Cases() {
  std::ifstream file(std::string(phasor::testing::kTestDataDir) +
                     "/tokenizers/spm_unit/cases.json");
  return nlohmann::json::parse(file);
}

std::vector<int32_t> Ids(const Model& model, const std::string& text) {
  std::vector<int32_t> ids;
  model.Tokenize(text, ids);
  return ids;
}

nlohmann::json Spec(nlohmann::json vocab) {
  return {{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"vocab", std::move(vocab)}};
}

TEST(WordPieceTest, MatchesTheJsPort) {
  const nlohmann::json cases = Cases()["wordpiece"];
  ASSERT_GE(cases.size(), 20u);
  for (const auto& c : cases) {
    const auto model = MakeModel(c["model"], "tokenizer.json: model");
    const std::string text = c["text"];
    EXPECT_EQ(Ids(*model, text), c["ids"].get<std::vector<int32_t>>()) << text;
  }
}

TEST(WordPieceTest, AppendsToWhatIsThere) {
  const auto model = MakeWordPiece(Spec({{"[UNK]", 0}, {"a", 1}, {"##b", 2}}), "t");
  std::vector<int32_t> ids = {7};
  model->Tokenize("ab", ids);
  model->Tokenize("ax", ids);  // the unknown word replaces only its own ids
  EXPECT_EQ(ids, (std::vector<int32_t>{7, 1, 2, 0}));
}

TEST(WordPieceTest, DefaultsAndTypeInference) {
  // No "type": the library infers WordPiece from continuing_subword_prefix;
  // max_input_chars_per_word defaults to 100 code points.
  const nlohmann::json spec = {{"unk_token", "[UNK]"},
                               {"continuing_subword_prefix", "##"},
                               {"vocab", {{"[UNK]", 0}, {"é", 1}, {"##é", 2}}}};
  const auto model = MakeModel(spec, "tokenizer.json: model");
  std::string word_100, word_101;
  for (int i = 0; i < 100; ++i) word_100 += "é";
  word_101 = word_100 + "é";
  EXPECT_EQ(Ids(*model, word_100).size(), 100u);
  EXPECT_EQ(Ids(*model, word_101), (std::vector<int32_t>{0}));
}

TEST(WordPieceTest, TokenToIdAndVocabSize) {
  const auto model = MakeWordPiece(Spec({{"[UNK]", 4}, {"a", 0}, {"##b", 9}}), "t");
  EXPECT_EQ(model->TokenToId("##b"), 9);
  EXPECT_EQ(model->TokenToId("b"), std::nullopt);
  EXPECT_EQ(model->VocabSize(), 10);
}

TEST(WordPieceTest, RefusesBrokenVocabularies) {
  const std::string where = "tokenizer.json: model";
  auto error = [&](const nlohmann::json& spec) {
    return ErrorOf([&] { MakeWordPiece(spec, where); });
  };
  EXPECT_EQ(error(Spec(nlohmann::json::object())),
            "tokenizer.json: model.vocab: the vocabulary is empty");
  EXPECT_EQ(error({{"unk_token", "[UNK]"}}), "tokenizer.json: model.vocab: missing");
  EXPECT_EQ(error(Spec({{"a", 0}})),
            "tokenizer.json: model.unk_token: \"[UNK]\" is not in the vocabulary");
  EXPECT_EQ(error(Spec({{"[UNK]", 0}, {"a", 0}})),
            "tokenizer.json: model.vocab[\"a\"]: id 0 is also the id of \"[UNK]\"");
  EXPECT_EQ(error(Spec({{"[UNK]", 0}, {"a", -1}})),
            "tokenizer.json: model.vocab[\"a\"]: expected an id (an integer >= 0), got -1");
  EXPECT_EQ(error(Spec({{"[UNK]", 0}, {"a", 1.5}})),
            "tokenizer.json: model.vocab[\"a\"]: expected an id (an integer >= 0), got 1.5");
  EXPECT_EQ(error(Spec({{"[UNK]", 0}, {"a", 4294967296LL}})),
            "tokenizer.json: model.vocab[\"a\"]: id 4294967296 is out of range (ids are below "
            "2^31 - 1)");
  EXPECT_EQ(error(Spec(nlohmann::json::array())),
            "tokenizer.json: model.vocab: expected an object {token: id}");
  nlohmann::json spec = Spec({{"[UNK]", 0}});
  spec["max_input_chars_per_word"] = -3;
  EXPECT_EQ(error(spec),
            "tokenizer.json: model.max_input_chars_per_word: expected an integer >= 0, got -3");
  spec = Spec({{"[UNK]", 0}});
  spec["continuing_subword_prefix"] = 5;
  EXPECT_EQ(error(spec),
            "tokenizer.json: model.continuing_subword_prefix: expected a string, got 5");
}

}  // namespace
}  // namespace phasor::tokenizers

// Unigram against SentencePiece (ids in tests/data/tokenizers/spm_unit/
// cases.json, made by make_fixtures.py there with spm_train and the Python
// sentencepiece module): models trained on a small corpus, with and without
// byte fallback, and a hand-made model whose scores tie on several paths.
// Unknown characters, fused unknown runs and byte fallback are in the cases.
// Where tokenizers differs from SentencePiece (it matches its own "<unk>"
// piece in text), the ids are worked out from
// tokenizers/src/models/unigram/model.rs and the case says why.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/error_of.h"
#include "tests/support/paths.h"
#include "tokenizers/model.h"

namespace phasor::tokenizers {
namespace {

using testing::ErrorOf;

const std::string kData = std::string(phasor::testing::kTestDataDir) + "/tokenizers/spm_unit/";

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream file(path);
  return nlohmann::json::parse(file);
}

std::vector<int32_t> Ids(const Model& model, const std::string& text) {
  std::vector<int32_t> ids;
  model.Tokenize(text, ids);
  return ids;
}

TEST(UnigramTest, MatchesSentencePiece) {
  const nlohmann::json cases = ReadJson(kData + "cases.json")["unigram"];
  ASSERT_GE(cases.size(), 40u);
  for (const auto& c : cases) {
    const auto model =
        MakeModel(ReadJson(kData + c["model"].get<std::string>()), "tokenizer.json: model");
    const std::string text = c["text"];
    EXPECT_EQ(Ids(*model, text), c["ids"].get<std::vector<int32_t>>())
        << c["model"].get<std::string>() << ": " << text;
  }
}

TEST(UnigramTest, TheUnknownPieceInTextIsFusedWithUnknownCharacters) {
  // The trie holds "<unk>" itself, so text spelling it matches it; its id is
  // unk_id, so it joins the unknown run beside it, and the run "☃<unk>" (not
  // a piece) becomes the byte pieces of all its bytes.
  const nlohmann::json spec = ReadJson(kData + "unigram_bytes.json");
  const auto model = MakeUnigram(spec, "t");
  const int32_t unk = spec["unk_id"];
  EXPECT_EQ(Ids(*model, "<unk>"), (std::vector<int32_t>{unk}));
  std::vector<int32_t> bytes;
  for (const unsigned char b : std::string("☃<unk>")) {
    char piece[8];
    std::snprintf(piece, sizeof piece, "<0x%02X>", b);
    bytes.push_back(*model->TokenToId(piece));
  }
  EXPECT_EQ(Ids(*model, "☃<unk>"), bytes);
}

TEST(UnigramTest, WithoutUnkIdAnUncoveredCharacterIsAnErrorWhenItsPathIsTaken) {
  // encode_optimized asks for unk_id only when the unknown path is the best
  // one to the end of the character so far: in "ab" the path "ab" already
  // reaches there with a better score, in "xy" the unknown "x" is the only
  // path to the end of x.
  const auto spec = nlohmann::json::parse(
      R"({"type": "Unigram", "vocab": [["a", -1], ["ab", -1], ["xy", -1]], "unk_id": null})");
  const auto model = MakeUnigram(spec, "t");
  EXPECT_EQ(Ids(*model, "ab"), (std::vector<int32_t>{1}));
  EXPECT_EQ(Ids(*model, "aab"), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(ErrorOf([&] { Ids(*model, "xy"); }),
            "Unigram model: no piece covers \"x\" and the model has no unk_id to stand for it");
  EXPECT_EQ(ErrorOf([&] { Ids(*model, "a☃"); }),
            "Unigram model: no piece covers \"☃\" and the model has no unk_id to stand for it");
}

TEST(UnigramTest, TokenToIdAndVocabSize) {
  const nlohmann::json spec = ReadJson(kData + "ties.json");
  const auto model = MakeUnigram(spec, "t");
  EXPECT_EQ(model->VocabSize(), static_cast<int32_t>(spec["vocab"].size()));
  EXPECT_EQ(model->TokenToId("bcd"), 11);
  EXPECT_EQ(model->TokenToId("dcb"), std::nullopt);
}

TEST(UnigramTest, RefusesBrokenVocabularies) {
  const std::string where = "tokenizer.json: model";
  auto error = [&](const nlohmann::json& spec) {
    return ErrorOf([&] { MakeUnigram(spec, where); });
  };
  auto parsed = [&](const char* spec) { return error(nlohmann::json::parse(spec)); };
  EXPECT_EQ(parsed(R"({"vocab": [], "unk_id": 0})"),
            "tokenizer.json: model.vocab: the vocabulary is empty");
  EXPECT_EQ(parsed(R"({"unk_id": 0})"), "tokenizer.json: model.vocab: missing");
  EXPECT_EQ(parsed(R"({"vocab": {"a": 1}, "unk_id": 0})"),
            "tokenizer.json: model.vocab: expected an array of [piece, score]");
  EXPECT_EQ(parsed(R"({"vocab": [["<unk>", 0], ["a", -1]], "unk_id": 2})"),
            "tokenizer.json: model.unk_id: 2 is not an id of the vocabulary (0 to 1)");
  EXPECT_EQ(parsed(R"({"vocab": [["<unk>", 0], ["a", -1]], "unk_id": -1})"),
            "tokenizer.json: model.unk_id: -1 is not an id of the vocabulary (0 to 1)");
  EXPECT_EQ(parsed(R"({"vocab": [["<unk>", 0], ["a", -1], ["a", -2]], "unk_id": 0})"),
            "tokenizer.json: model.vocab[2]: \"a\" is already piece 1");
  EXPECT_EQ(parsed(R"({"vocab": [["<unk>", 0], ["a", "high"]], "unk_id": 0})"),
            "tokenizer.json: model.vocab[1]: expected [piece, score], got [\"a\",\"high\"]");
  EXPECT_EQ(parsed(R"({"vocab": [["<unk>", 0]], "unk_id": 0, "byte_fallback": 1})"),
            "tokenizer.json: model.byte_fallback: expected true or false, got 1");
}

TEST(UnigramTest, ManyThreads) {
  const nlohmann::json cases = ReadJson(kData + "cases.json")["unigram"];
  const auto model = MakeUnigram(ReadJson(kData + "unigram_plain.json"), "t");
  std::vector<std::pair<std::string, std::vector<int32_t>>> plain;
  for (const auto& c : cases) {
    if (c["model"] == "unigram_plain.json") plain.emplace_back(c["text"], c["ids"]);
  }
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round) {
        for (const auto& [text, ids] : plain) mismatches[t] += Ids(*model, text) != ids;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches, (std::vector<int>{0, 0, 0, 0}));
}

}  // namespace
}  // namespace phasor::tokenizers

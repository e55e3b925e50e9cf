// SentencePiece model files run by libsentencepiece, their pieces mapped to
// ids as transformers maps them (ids in tests/data/tokenizers/spm_unit/
// cases.json, made by make_fixtures.py there with the Python sentencepiece
// module): fairseq's layout (XLMRobertaTokenizer: id + 1, unknown -> 3) and
// Marian's (MarianTokenizer: the piece through vocab.json, missing -> <unk>).
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

nlohmann::json SpmCases() {
  std::ifstream file(kData + "cases.json");
  return nlohmann::json::parse(file)["sentencepiece_file"];
}

std::vector<int32_t> Ids(const Model& model, const std::string& text) {
  std::vector<int32_t> ids;
  model.Tokenize(text, ids);
  return ids;
}

SentencePieceFileOptions Fairseq() {
  SentencePieceFileOptions options;
  options.path = kData + "unigram_nfkc.model";
  options.id_offset = 1;
  options.unk_id = 3;
  return options;
}

SentencePieceFileOptions Marian() {
  SentencePieceFileOptions options;
  options.path = kData + "unigram_nfkc.model";
  options.piece_ids_json = kData + "marian_vocab.json";
  options.unk_id = SpmCases()["marian_unk_id"];
  return options;
}

TEST(SentencePieceFileTest, FairseqLayoutMatchesTransformers) {
  const auto model = MakeSentencePieceFile(Fairseq());
  const nlohmann::json cases = SpmCases();
  for (const auto& c : cases["xlmr"]) {
    EXPECT_EQ(Ids(*model, c["text"]), c["ids"].get<std::vector<int32_t>>()) << c["text"];
  }
  EXPECT_EQ(model->TokenToId("<unk>"), 3);
  EXPECT_EQ(model->TokenToId("▁the"), 44);  // "the national school" begins with it
  EXPECT_EQ(model->TokenToId("not a piece"), std::nullopt);
}

TEST(SentencePieceFileTest, MarianLayoutMatchesTransformers) {
  const auto model = MakeSentencePieceFile(Marian());
  const nlohmann::json cases = SpmCases();
  for (const auto& c : cases["marian"]) {
    EXPECT_EQ(Ids(*model, c["text"]), c["ids"].get<std::vector<int32_t>>()) << c["text"];
  }
  for (const auto& dropped : cases["dropped"]) {
    EXPECT_EQ(model->TokenToId(dropped.get<std::string>()), std::nullopt) << dropped;
  }
  std::ifstream file(kData + "marian_vocab.json");
  const auto vocab = nlohmann::json::parse(file);
  EXPECT_EQ(model->VocabSize(), static_cast<int32_t>(vocab.size()));
  EXPECT_EQ(model->TokenToId("<unk>"), vocab["<unk>"].get<int32_t>());
}

TEST(SentencePieceFileTest, VocabSizeCountsTheOffset) {
  // The model has <unk>, <s>, </s> and its trained pieces; fairseq's ids run
  // one past SentencePiece's.
  std::ifstream file(kData + "marian_vocab.json");
  const auto vocab = nlohmann::json::parse(file);
  const size_t pieces = vocab.size() + SpmCases()["dropped"].size();
  EXPECT_EQ(MakeSentencePieceFile(Fairseq())->VocabSize(), static_cast<int32_t>(pieces + 1));
}

TEST(SentencePieceFileTest, ErrorsNameTheFile) {
  SentencePieceFileOptions options = Fairseq();
  options.path = kData + "no_such.model";
  EXPECT_NE(ErrorOf([&] { MakeSentencePieceFile(options); }).find(options.path + ": "),
            std::string::npos);
  const std::string garbage = ::testing::TempDir() + "/garbage.model";
  std::ofstream(garbage) << "not a model";
  options.path = garbage;
  EXPECT_EQ(ErrorOf([&] { MakeSentencePieceFile(options); }).rfind(garbage + ": ", 0), 0u);

  options = Marian();
  options.piece_ids_json = ::testing::TempDir() + "/vocab.json";
  std::ofstream(options.piece_ids_json) << "{\"a\": 0, \"b\": 0}";
  EXPECT_EQ(ErrorOf([&] { MakeSentencePieceFile(options); }),
            options.piece_ids_json + "[\"b\"]: id 0 is also the id of \"a\"");
  std::ofstream(options.piece_ids_json) << "{\"a\": ";
  EXPECT_EQ(ErrorOf([&] {
              MakeSentencePieceFile(options);
            }).rfind(options.piece_ids_json + ": not valid JSON: ", 0),
            0u);
  options.piece_ids_json = ::testing::TempDir() + "/missing.json";
  EXPECT_EQ(ErrorOf([&] { MakeSentencePieceFile(options); }),
            options.piece_ids_json + ": cannot be read");
}

TEST(SentencePieceFileTest, ManyThreads) {
  const auto model = MakeSentencePieceFile(Fairseq());
  const nlohmann::json cases = SpmCases()["xlmr"];
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 100; ++round) {
        for (const auto& c : cases) {
          mismatches[t] += Ids(*model, c["text"]) != c["ids"].get<std::vector<int32_t>>();
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches, (std::vector<int>{0, 0, 0, 0}));
}

}  // namespace
}  // namespace phasor::tokenizers

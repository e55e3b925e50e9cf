// BPE against the JS port of tokenizers (ids in
// tests/data/tokenizers/spm_unit/cases.json, made by make_fixtures.py there:
// merge order and ties, unknown and fused unknown characters, byte fallback,
// end_of_word_suffix, ignore_merges, a small byte-level BPE on English text),
// and, where the JS port does not follow the Rust crate, ids worked out by
// hand from tokenizers/src/models/bpe/model.rs, each case saying why:
//  - the JS port ignores continuing_subword_prefix;
//  - it merges characters as strings, where the crate first turns an unknown
//    character into the unknown id (which a merge may then take);
//  - it applies byte fallback after the merges, to whole tokens.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
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

nlohmann::json ModelOf(const nlohmann::json& c) {
  return c["model"].is_string() ? ReadJson(kData + c["model"].get<std::string>()) : c["model"];
}

TEST(BpeTest, MatchesTheJsPort) {
  const nlohmann::json cases = ReadJson(kData + "cases.json")["bpe"];
  ASSERT_GE(cases.size(), 50u);
  for (const auto& c : cases) {
    const auto model = MakeModel(ModelOf(c), "tokenizer.json: model");
    const std::string text = c["text"];
    EXPECT_EQ(Ids(*model, text), c["ids"].get<std::vector<int32_t>>()) << text;
  }
}

nlohmann::json Spec(nlohmann::json vocab, nlohmann::json merges) {
  return {{"type", "BPE"}, {"vocab", std::move(vocab)}, {"merges", std::move(merges)}};
}

TEST(BpeTest, ContinuingSubwordPrefix) {
  // The crate's own test_bpe_with_continuing_subword_prefix: "##" goes before
  // every character but the first, and a merge drops the right part's "##".
  const auto spec = nlohmann::json::parse(R"({
      "type": "BPE", "unk_token": null, "continuing_subword_prefix": "##",
      "vocab": {"a": 0, "##b": 1, "##c": 2, "ab": 3, "abc": 4},
      "merges": [["a", "##b"], ["ab", "##c"]]})");
  const auto model = MakeBpe(spec, "t");
  EXPECT_EQ(Ids(*model, "ab"), (std::vector<int32_t>{3}));
  EXPECT_EQ(Ids(*model, "abc"), (std::vector<int32_t>{4}));
  EXPECT_EQ(Ids(*model, "acb"), (std::vector<int32_t>{0, 2, 1}));
}

TEST(BpeTest, MergesTakeTheUnknownId) {
  // The crate merges ids: "☃" is <unk> (0) before any merge, so "<unk> a"
  // applies to it.
  nlohmann::json spec =
      Spec({{"<unk>", 0}, {"a", 1}, {"<unk>a", 2}}, nlohmann::json::array({"<unk> a"}));
  spec["unk_token"] = "<unk>";
  const auto model = MakeBpe(spec, "t");
  EXPECT_EQ(Ids(*model, "☃a"), (std::vector<int32_t>{2}));
  EXPECT_EQ(Ids(*model, "a☃"), (std::vector<int32_t>{1, 0}));
}

TEST(BpeTest, ByteFallbackGoesBeforeAWaitingUnknown) {
  // merge_word holds an unknown token back to fuse it with the next one;
  // byte fallback pieces are added without flushing it, so for "é☃" (no
  // pieces for é's bytes, all three for ☃'s) the bytes of ☃ come first.
  nlohmann::json spec = Spec({{"<unk>", 0}, {"<0xE2>", 1}, {"<0x98>", 2}, {"<0x83>", 3}, {"a", 4}},
                             nlohmann::json::array());
  spec["unk_token"] = "<unk>";
  spec["byte_fallback"] = true;
  spec["fuse_unk"] = true;
  const auto model = MakeBpe(spec, "t");
  EXPECT_EQ(Ids(*model, "é☃"), (std::vector<int32_t>{1, 2, 3, 0}));
  EXPECT_EQ(Ids(*model, "éé☃a"), (std::vector<int32_t>{1, 2, 3, 0, 4}));
}

TEST(BpeTest, WithoutUnknownTokenAnUnknownCharacterIsDropped) {
  // merge_word adds nothing for a character it cannot find when unk_token is
  // null (GPT-2's byte-level vocabularies never meet one).
  const auto model = MakeBpe(Spec({{"a", 0}, {"b", 1}}, nlohmann::json::array()), "t");
  EXPECT_EQ(Ids(*model, "a☃b"), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(Ids(*model, "☃"), (std::vector<int32_t>{}));
}

TEST(BpeTest, VersionLineIsSkippedWithoutARank) {
  // merges.txt's "#version" header, kept in a legacy tokenizer.json: skipped,
  // so "b c" keeps rank 0 and beats "a b" (rank 1) in "abc".
  const auto model = MakeBpe(
      Spec({{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}, {"bc", 4}}, {"#version: 0.2", "b c", "a b"}),
      "t");
  EXPECT_EQ(Ids(*model, "abc"), (std::vector<int32_t>{0, 4}));
}

TEST(BpeTest, AMergeOfTokensWithSpacesIsCutWhereTheVocabularyAgrees) {
  // As the library's test_legacy_v1_merges_with_space_in_token_round_trip:
  // "b  " can only be ("b", " ") and "a b " only ("a", "b "), the cuts whose
  // parts and join are tokens; then "ab " merges b with the space, then a
  // with "b ".
  const auto model =
      MakeBpe(Spec({{"a", 0}, {"b", 1}, {" ", 2}, {"b ", 3}, {"ab ", 4}}, {"b  ", "a b "}), "t");
  EXPECT_EQ(Ids(*model, "ab "), (std::vector<int32_t>{4}));
  EXPECT_EQ(Ids(*model, " ab"), (std::vector<int32_t>{2, 0, 1}));
}

TEST(BpeTest, DropoutZeroIsReadAnyOtherIsRefused) {
  nlohmann::json spec = Spec({{"a", 0}}, nlohmann::json::array());
  spec["dropout"] = 0.0;
  EXPECT_EQ(ErrorOf([&] { MakeBpe(spec, "tokenizer.json: model"); }), "");
  spec["dropout"] = 0.1;
  EXPECT_EQ(ErrorOf([&] { MakeBpe(spec, "tokenizer.json: model"); }),
            "tokenizer.json: model.dropout: 0.1: BPE dropout skips merges at random, so its ids "
            "are not reproducible; phasor reads null or 0 only");
}

TEST(BpeTest, RefusesBrokenFiles) {
  const std::string where = "tokenizer.json: model";
  auto error = [&](const nlohmann::json& spec) { return ErrorOf([&] { MakeBpe(spec, where); }); };
  const nlohmann::json vocab = {{"a", 0}, {"b", 1}, {"ab", 2}};
  EXPECT_EQ(error(Spec(vocab, {"a b", "a c"})),
            "tokenizer.json: model.merges[1]: \"c\" is not in the vocabulary");
  EXPECT_EQ(error(Spec(vocab, {"a b", "c a"})),
            "tokenizer.json: model.merges[1]: \"c\" is not in the vocabulary");
  EXPECT_EQ(error(Spec(vocab, {"a b", "b a"})),
            "tokenizer.json: model.merges[1]: \"ba\" is not in the vocabulary");
  EXPECT_EQ(error(Spec(vocab, {"ab"})),
            "tokenizer.json: model.merges[0]: expected two tokens separated by a space, got "
            "\"ab\"");
  EXPECT_EQ(error(Spec(vocab, {"a b c"})),
            "tokenizer.json: model.merges[0]: \"a b c\" has several spaces and no cut of it into "
            "tokens a, b with ab a token; write it as [\"a\", \"b\"]");
  EXPECT_EQ(error(Spec(vocab, {{"a"}})),
            "tokenizer.json: model.merges[0]: expected \"a b\" or [\"a\", \"b\"], got [\"a\"]");
  EXPECT_EQ(error({{"vocab", vocab}}), "tokenizer.json: model.merges: missing");
  EXPECT_EQ(error(Spec(nlohmann::json::object(), nlohmann::json::array())),
            "tokenizer.json: model.vocab: the vocabulary is empty");
  nlohmann::json spec = Spec(vocab, nlohmann::json::array());
  spec["unk_token"] = "<unk>";
  EXPECT_EQ(error(spec), "tokenizer.json: model.unk_token: \"<unk>\" is not in the vocabulary");
  spec = Spec(vocab, nlohmann::json::array());
  spec["fuse_unk"] = "yes";
  EXPECT_EQ(error(spec), "tokenizer.json: model.fuse_unk: expected true or false, got \"yes\"");
}

TEST(BpeTest, TokenToIdAndVocabSize) {
  const nlohmann::json spec = ReadJson(kData + "byte_level_bpe.json");
  const auto model = MakeBpe(spec, "t");
  EXPECT_EQ(model->VocabSize(), static_cast<int32_t>(spec["vocab"].size()));
  EXPECT_EQ(model->TokenToId("Ġthe"), spec["vocab"]["Ġthe"].get<int32_t>());
  EXPECT_EQ(model->TokenToId("not a token"), std::nullopt);
}

// Threads sharing one model (and its cache) give the ids one thread gives,
// over more distinct words than the cache holds, so that shards empty and
// refill while others read them.
TEST(BpeTest, ManyThreadsShareTheCache) {
  const nlohmann::json spec = ReadJson(kData + "byte_level_bpe.json");
  std::vector<std::string> words;
  std::mt19937 rng(11);
  const std::vector<std::string> letters = {"a", "b", "c", "d", "e", "h", "i", "l", "n",
                                            "o", "r", "s", "t", "u", "w", "Ġ", "Ã", "©"};
  for (int i = 0; i < 30000; ++i) {
    std::string w;
    const int n = 1 + static_cast<int>(rng() % 9);
    for (int k = 0; k < n; ++k) w += letters[rng() % letters.size()];
    words.push_back(w);
  }
  std::vector<std::vector<int32_t>> expected;
  {
    const auto fresh = MakeBpe(spec, "t");  // one thread, one model
    for (const auto& w : words) expected.push_back(Ids(*fresh, w));
  }
  const auto shared = MakeBpe(spec, "t");
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round) {
        for (size_t i = t; i < words.size(); i += 2) {
          if (Ids(*shared, words[i]) != expected[i]) ++mismatches[t];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches, (std::vector<int>{0, 0, 0, 0}));
}

// The merges by their definition, written out plainly: the pair of lowest
// rank, the leftmost of equal ones, merged until no pair has a rule (a pair
// listed twice takes its later rank, as the crate's HashMap collect). Over
// code points of a vocabulary in which each one is a token.
std::vector<int32_t> ReferenceIds(const nlohmann::json& spec, const std::string& word) {
  std::map<std::pair<std::string, std::string>, size_t> rank;
  for (size_t r = 0; r < spec["merges"].size(); ++r) {
    const std::string m = spec["merges"][r];
    const size_t space = m.find(' ');
    rank[std::make_pair(m.substr(0, space), m.substr(space + 1))] = r;  // the last line wins
  }
  std::vector<std::string> symbols;
  for (size_t i = 0; i < word.size();) {
    const size_t n = (static_cast<unsigned char>(word[i]) < 0x80) ? 1 : 2;
    symbols.push_back(word.substr(i, n));
    i += n;
  }
  for (;;) {
    size_t best = symbols.size(), best_rank = SIZE_MAX;
    for (size_t k = 0; k + 1 < symbols.size(); ++k) {
      const auto it = rank.find({symbols[k], symbols[k + 1]});
      if (it != rank.end() && it->second < best_rank) {
        best = k;
        best_rank = it->second;
      }
    }
    if (best == symbols.size()) break;
    symbols[best] += symbols[best + 1];
    symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
  std::vector<int32_t> ids;
  for (const std::string& s : symbols) ids.push_back(spec["vocab"][s].get<int32_t>());
  return ids;
}

// Words of 1 to 120 symbols, short ones (merged by scans) and long ones (by
// the queue), against the definition above.
TEST(BpeTest, ShortAndLongWordsMergeAsTheDefinitionSays) {
  const nlohmann::json spec = ReadJson(kData + "byte_level_bpe.json");
  const auto model = MakeBpe(spec, "t");
  const std::vector<std::string> letters = {"a", "e", "h", "i", "n", "r",
                                            "s", "t", "Ġ", "o", "u", "l"};
  // Runs of "o" (the vocabulary merges "o o"): the leftmost pair first.
  for (const std::string& w :
       std::vector<std::string>{"ooo", "ooooo", "nooot", std::string(43, 'o')})
    EXPECT_EQ(Ids(*model, w), ReferenceIds(spec, w)) << w;
  std::mt19937 rng(5);
  for (int i = 0; i < 600; ++i) {
    std::string w;
    const int n = 1 + static_cast<int>(rng() % 120);
    for (int k = 0; k < n; ++k) w += letters[rng() % letters.size()];
    EXPECT_EQ(Ids(*model, w), ReferenceIds(spec, w)) << w;
  }
}

// A pair listed twice takes the rank of its later line: here "b c" (rank 1)
// goes before "a b" (rank 2), in short words and long ones alike.
TEST(BpeTest, ARepeatedMergeTakesItsLaterRank) {
  const nlohmann::json spec = Spec({{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}, {"bc", 4}},
                                   nlohmann::json::array({"a b", "b c", "a b"}));
  const auto model = MakeBpe(spec, "t");
  EXPECT_EQ(Ids(*model, "abc"), (std::vector<int32_t>{0, 4}));
  std::string long_word;
  std::vector<int32_t> want;
  for (int k = 0; k < 12; ++k) {
    long_word += "abc";
    want.insert(want.end(), {0, 4});
  }
  EXPECT_EQ(Ids(*model, long_word), want);
  EXPECT_EQ(ReferenceIds(spec, long_word), want);
}

// Two models used in turn on one thread give each its own ids for the same
// words (each its own cache).
TEST(BpeTest, ModelsUsedInTurnKeepTheirOwnIds) {
  const auto merging = MakeBpe(
      Spec({{"a", 0}, {"b", 1}, {"ab", 2}, {"abab", 3}}, nlohmann::json::array({"a b", "ab ab"})),
      "t");
  const auto plain = MakeBpe(
      Spec({{"a", 0}, {"b", 1}, {"ab", 2}, {"abab", 3}}, nlohmann::json::array({"a b"})), "t");
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(Ids(*merging, "abab"), (std::vector<int32_t>{3}));
    EXPECT_EQ(Ids(*plain, "abab"), (std::vector<int32_t>{2, 2}));
    EXPECT_EQ(Ids(*merging, "ba"), (std::vector<int32_t>{1, 0}));
    EXPECT_EQ(Ids(*plain, "ba"), (std::vector<int32_t>{1, 0}));
  }
}

}  // namespace
}  // namespace phasor::tokenizers

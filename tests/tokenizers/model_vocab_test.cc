// The token table (tokenizers/model_vocab.h) against std::unordered_map on
// the same tokens: every length of the hash's cases (0, 1-3, 4-8, past 8
// bytes, several words), tokens one byte apart anywhere, growth without a
// reservation, lookups of a concatenation, ids past the count.
#include "tokenizers/model_vocab.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "tests/support/error_of.h"
#include "tokenizers/json_reader.h"

namespace phasor::tokenizers {
namespace {

// Tokens of every length 0 to 40, each with neighbours that differ from it in
// one byte (first, middle or last), and random ones.
std::vector<std::string> Tokens() {
  std::vector<std::string> tokens;
  std::mt19937 rng(7);
  for (size_t n = 0; n <= 40; ++n) {
    std::string base;
    for (size_t k = 0; k < n; ++k) base += static_cast<char>('a' + k % 26);
    tokens.push_back(base);
    for (const size_t at : {size_t{0}, n / 2, n - 1}) {
      if (n == 0) break;
      for (const char c : {'#', '\xe2', '\0'}) {
        std::string t = base;
        t[at] = c;
        tokens.push_back(t);
      }
    }
    for (int r = 0; r < 20; ++r) {
      std::string t(n, ' ');
      for (char& c : t) c = static_cast<char>(rng() % 256);
      tokens.push_back(t);
    }
  }
  return tokens;
}

TEST(TokenTableTest, FindsWhatAMapFinds) {
  std::unordered_map<std::string, int32_t> reference;
  TokenTable table;  // no Reserve: it grows
  int32_t id = 0;
  for (const std::string& t : Tokens()) {
    const bool fresh = reference.emplace(t, id).second;
    EXPECT_EQ(table.Insert(t, id), fresh) << t.size();
    if (fresh) ++id;
  }
  ASSERT_EQ(table.size(), reference.size());
  EXPECT_EQ(table.IdBound(), id);
  for (const auto& [token, token_id] : reference) {
    EXPECT_EQ(table.Find(token), token_id) << token.size();
    EXPECT_EQ(table.TokenOf(token_id), token);
    EXPECT_TRUE(table.HasId(token_id));
    // Every cut of the token, looked up as two parts.
    for (size_t cut = 0; cut <= token.size(); ++cut)
      EXPECT_EQ(table.Find(token.substr(0, cut), token.substr(cut)), token_id);
  }
  // Tokens not in the table, one byte away from some that are.
  for (const std::string& t : Tokens()) {
    const std::string longer = t + "z";
    EXPECT_EQ(table.Find(longer).has_value(), reference.count(longer) == 1);
    EXPECT_EQ(table.Find(t, "z").has_value(), reference.count(longer) == 1);
  }
  size_t seen = 0;
  table.ForEach([&](std::string_view token, int32_t token_id) {
    EXPECT_EQ(reference.at(std::string(token)), token_id);
    ++seen;
  });
  EXPECT_EQ(seen, reference.size());
}

TEST(TokenTableTest, LongConcatenationsAndSparseIds) {
  TokenTable table;
  table.Reserve(2);
  const std::string a(100, 'a'), b(100, 'b');
  EXPECT_TRUE(table.Insert(a + b, 1000));
  EXPECT_TRUE(table.Insert("", 3));
  EXPECT_EQ(table.Find(a, b), 1000);
  EXPECT_EQ(table.Find(a + b), 1000);
  EXPECT_EQ(table.Find(""), 3);
  EXPECT_EQ(table.Find("", ""), 3);
  EXPECT_EQ(table.IdBound(), 1001);
  EXPECT_FALSE(table.HasId(999));
  EXPECT_EQ(table.TokenOf(999), "");
  EXPECT_TRUE(table.HasId(3));
  EXPECT_FALSE(table.HasId(-1));
}

TokenTable Read(const std::string& text) {
  const JsonDocument document(text, "vocab.json");
  return ReadTokenIds(document.root(), "vocab.json");
}

TEST(TokenTableTest, ReadTokenIdsNamesTheToken) {
  const TokenTable table = Read("{\"a\": 2, \"\\u00e9\": 0, \"b c\": 1}");
  EXPECT_EQ(table.Find("\xc3\xa9"), 0);
  EXPECT_EQ(table.Find("b c"), 1);
  EXPECT_EQ(table.IdBound(), 3);
  auto error = [](const std::string& text) { return testing::ErrorOf([&] { Read(text); }); };
  EXPECT_EQ(error("{\"a\": 0, \"a\": 1}"),
            "vocab.json[\"a\"]: the token appears twice, expected once");
  EXPECT_EQ(error("{\"a\": 0, \"a\": 0}"),
            "vocab.json[\"a\"]: the token appears twice, expected once");
  EXPECT_EQ(error("{\"a\": 0, \"b\": 0}"), "vocab.json[\"b\"]: id 0 is also the id of \"a\"");
  EXPECT_EQ(error("{\"a\": -1}"), "vocab.json[\"a\"]: expected an id (an integer >= 0), got -1");
  EXPECT_EQ(error("{\"a\": \"1\"}"),
            "vocab.json[\"a\"]: expected an id (an integer >= 0), got \"1\"");
  EXPECT_EQ(error("{\"a\": 2147483647}"),
            "vocab.json[\"a\"]: id 2147483647 is out of range (ids are below 2^31 - 1)");
  EXPECT_EQ(error("{\"a\": 18446744073709551615}"),
            "vocab.json[\"a\"]: id 18446744073709551615 is out of range (ids are below 2^31 - 1)");
  EXPECT_EQ(error("{}"), "vocab.json: the vocabulary is empty");
  EXPECT_EQ(error("[]"), "vocab.json: expected an object {token: id}");
}

}  // namespace
}  // namespace phasor::tokenizers

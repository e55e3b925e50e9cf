// The Tokenizer's own steps on the hand-made tokenizer of
// tests/data/tokenizers/hand (ids in its README): added tokens and their
// flags, longest-first truncation, and UTF-8 as Python reads it. Expected ids
// are worked out by hand from the Hugging Face tokenizers library's rules.
#include "tokenizers/tokenizer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/error.h"
#include "models/text_input.h"
#include "tests/support/paths.h"
#include "tests/support/run.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

using Ids = std::vector<int32_t>;

// The hand tokenizer, with added tokens appended to its list.
std::shared_ptr<const Tokenizer> HandTokenizer(
    const std::string& name, const nlohmann::json& added = nlohmann::json::array()) {
  auto spec = nlohmann::json::parse(testing::ReadFile(std::string(phasor::testing::kTestDataDir) +
                                                      "/tokenizers/hand/tokenizer.json"));
  for (const auto& a : added) spec["added_tokens"].push_back(a);
  const std::string dir = ::testing::TempDir() + "tokenizer_test_" + name;
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  std::ofstream(dir + "/tokenizer.json") << spec.dump();
  return Tokenizer::Load(dir);
}

nlohmann::json Added(const std::string& content, int id, bool single_word, bool normalized) {
  return {{"id", id},        {"content", content}, {"single_word", single_word},
          {"lstrip", false}, {"rstrip", false},    {"normalized", normalized},
          {"special", false}};
}

// Two tokenizers used in turn on one thread (each thread keeps its recent
// pieces, recent_pieces.h) give each its own ids for the same words: here
// the second's vocabulary swaps the ids of "hello" and "world".
TEST(TokenizerTest, TokenizersUsedInTurnKeepTheirOwnIds) {
  const auto a = HandTokenizer("turn_a");
  auto spec = nlohmann::json::parse(testing::ReadFile(std::string(phasor::testing::kTestDataDir) +
                                                      "/tokenizers/hand/tokenizer.json"));
  spec["model"]["vocab"]["hello"] = 6;
  spec["model"]["vocab"]["world"] = 5;
  const std::string dir = ::testing::TempDir() + "tokenizer_test_turn_b";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  std::ofstream(dir + "/tokenizer.json") << spec.dump();
  const auto b = Tokenizer::Load(dir);
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(a->Encode("hello world", {}).ids, (Ids{2, 5, 6, 3}));
    EXPECT_EQ(b->Encode("hello world", {}).ids, (Ids{2, 6, 5, 3}));
  }
}

TEST(TokenizerTest, TruncationIsLongestFirst) {
  const auto tok = HandTokenizer("truncate");
  TokenizeOptions o;
  // 4 + 4 ids and 3 special tokens in 8: both cut, 5 / 2 = 2 to a, 3 to b.
  o.max_length = 8;
  EXPECT_EQ(tok->EncodePair("hello hello hello hello", "world world world world", o).ids,
            (Ids{2, 5, 5, 3, 6, 6, 6, 3}));
  // 10 + 2 in 9 - 3 = 6: the shorter keeps its 2, the longer gets the other 4.
  o.max_length = 9;
  EXPECT_EQ(tok->EncodePair("hello hello hello hello hello hello hello hello hello hello",
                            "world world", o)
                .ids,
            (Ids{2, 5, 5, 5, 5, 3, 6, 6, 3}));
  // One text: its first ids, [SEP] kept.
  o.max_length = 4;
  EXPECT_EQ(tok->Encode("hello hello hello", o).ids, (Ids{2, 5, 5, 3}));
  // Without special tokens the whole length is the text's.
  o.add_special_tokens = false;
  EXPECT_EQ(tok->Encode("hello hello hello hello hello", o).ids, (Ids{5, 5, 5, 5}));
  o.add_special_tokens = true;
  o.max_length = 2;
  EXPECT_THROW(tok->EncodePair("hello", "world", o), Error);
}

TEST(TokenizerTest, AddedTokensMatchAsTheLibraryMatchesThem) {
  const auto tok =
      HandTokenizer("added", {Added("<x>", 15, true, false), Added("FOO", 16, false, true)});
  const TokenizeOptions o;
  // single_word: only where no word character touches it.
  EXPECT_EQ(tok->Encode("hello <x> world", o).ids, (Ids{2, 5, 15, 6, 3}));
  // Touching words: plain text, "<", "x", ">" each unknown.
  EXPECT_EQ(tok->Encode("hello<x>world", o).ids, (Ids{2, 5, 1, 1, 1, 6, 3}));
  EXPECT_EQ(tok->Encode("hello<x> world", o).ids, (Ids{2, 5, 1, 1, 1, 6, 3}));  // one side
  EXPECT_EQ(tok->Encode("<x>", o).ids, (Ids{2, 15, 3}));
  // normalized: matched in the lowercased text, as its content lowercased.
  EXPECT_EQ(tok->Encode("Foo hello", o).ids, (Ids{2, 16, 5, 3}));
  // A special token of the file ([MASK], normalized false) only as written.
  EXPECT_EQ(tok->Encode("[MASK] [mask]", o).ids.front(), 2);
  EXPECT_EQ(tok->Encode("[MASK] [mask]", o).ids[1], 4);
  EXPECT_NE(tok->Encode("[MASK] [mask]", o).ids[2], 4);
  EXPECT_EQ(tok->TokenToId("<x>"), 15);
  EXPECT_EQ(tok->vocab_size(), 17);
}

TEST(TokenizerTest, InvalidUtf8IsNamedByItsOffset) {
  const auto tok = HandTokenizer("utf8");
  try {
    tok->Encode(std::string("hello\xC3("), {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "byte offset 5: invalid UTF-8");
  }
}

// Python's bytes.decode("utf-8", errors="replace") of the same bytes (CPython 3.11).
TEST(TokenizerTest, ReplacingInvalidUtf8IsPythons) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(ReplaceInvalidUtf8("a\xFF"
                               "b\xE2\x82"
                               "c\xF0\x9F\x98"),
            "a" + fffd + "b" + fffd + "c" + fffd);
  EXPECT_EQ(ReplaceInvalidUtf8("\xED\xA0\x80x"), fffd + fffd + fffd + "x");      // a surrogate
  EXPECT_EQ(ReplaceInvalidUtf8("\xC0\xAFy"), fffd + fffd + "y");                 // overlong
  EXPECT_EQ(ReplaceInvalidUtf8("\xF4\x90\x80\x80"), fffd + fffd + fffd + fffd);  // > U+10FFFF
  EXPECT_EQ(ReplaceInvalidUtf8("ok\xE2\x82\xAC"), "ok\xE2\x82\xAC");
  EXPECT_EQ(FindInvalidUtf8("ok\xE2\x82\xAC"), std::string_view::npos);
  EXPECT_EQ(FindInvalidUtf8("12345678abc\xED\xA0\x80"), 11u);
}

// Every sequence of one to three bytes, and every four-byte one with a lead
// byte F0..F4 and continuation bytes drawn from the edges of their ranges,
// alone and after 40 ASCII bytes (the vectorised check's blocks): FindInvalidUtf8
// against the Unicode standard's well-formed sequences (§3.9, Table 3-7)
// written out here, and the offset of the first ill-formed byte.
bool WellFormed(const std::vector<unsigned char>& b) {
  size_t i = 0;
  while (i < b.size()) {
    const unsigned char c = b[i];
    size_t n = 1;
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
    if (c >= 0xC2 && c <= 0xDF) {
      n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else if (c >= 0x80) {
      return false;
    }
    if (i + n > b.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if (b[i + k] < (k == 1 ? lo : 0x80) || b[i + k] > (k == 1 ? hi : 0xBF)) return false;
    }
    i += n;
  }
  return true;
}

TEST(TokenizerTest, FindInvalidUtf8IsTheStandardsWellFormedness) {
  const std::string ascii(40, 'a');
  int64_t checked = 0;
  auto check = [&](const std::vector<unsigned char>& b) {
    const std::string text(b.begin(), b.end());
    const bool ok = WellFormed(b);
    ASSERT_EQ(FindInvalidUtf8(text) == std::string_view::npos, ok) << ::testing::PrintToString(b);
    const size_t after = FindInvalidUtf8(ascii + text);
    ASSERT_EQ(after == std::string_view::npos, ok);
    if (!ok) {
      ASSERT_GE(after, ascii.size());
    }
    ++checked;
  };
  for (int a = 0; a < 256; ++a) {
    check({static_cast<unsigned char>(a)});
    for (int b = 0; b < 256; ++b) {
      check({static_cast<unsigned char>(a), static_cast<unsigned char>(b)});
      if (a < 0xC0) continue;  // a third byte changes nothing after these leads
      for (int c = 0x70; c < 0xD0; ++c) {
        check({static_cast<unsigned char>(a), static_cast<unsigned char>(b),
               static_cast<unsigned char>(c)});
      }
    }
  }
  const unsigned char edges[] = {0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0};
  for (int a = 0xF0; a <= 0xF5; ++a) {
    for (const unsigned char b : edges) {
      for (const unsigned char c : edges) {
        for (const unsigned char d : edges) check({static_cast<unsigned char>(a), b, c, d});
      }
    }
  }
  EXPECT_GT(checked, 1000000);
}

// Blocks of whole lines however small the block: the lines and their numbers
// are the file's.
TEST(TokenizerTest, LineBlocksKeepLinesWhole) {
  const std::string path = ::testing::TempDir() + "tokenizer_test_blocks.txt";
  std::ofstream(path) << "abc\ndefghijklmnop\n\nxy";
  for (const size_t block : {1, 3, 5, 64}) {
    std::vector<std::pair<std::string, int64_t>> got;
    ForEachLineBlock(path, block, [&](std::string_view text, int64_t first) {
      size_t begin = 0;
      int64_t line = first;
      while (begin < text.size()) {
        size_t end = text.find('\n', begin);
        if (end == std::string_view::npos) end = text.size();
        got.emplace_back(std::string(text.substr(begin, end - begin)), line++);
        begin = end + 1;
      }
    });
    const std::vector<std::pair<std::string, int64_t>> want = {
        {"abc", 1}, {"defghijklmnop", 2}, {"", 3}, {"xy", 4}};
    EXPECT_EQ(got, want) << "block " << block;
  }
}

}  // namespace
}  // namespace phasor::tokenizers

// Token lines as users write them.
#include "models/tokens.h"

#include <gtest/gtest.h>

#include "engine/error.h"

namespace phasor {
namespace {

std::string ErrorOf(const std::string& text) {
  try {
    ParseTokens(text, "t.txt");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(TokensTest, SpacesCommasAndBlankLines) {
  const TokenBatch b = ParseTokens("3 14 15\n\n92,65, 35\r\n", "t.txt");
  EXPECT_EQ(b.batch, 2);
  EXPECT_EQ(b.seq, 3);
  EXPECT_EQ(b.ids, (std::vector<int32_t>{3, 14, 15, 92, 65, 35}));
  EXPECT_EQ(b.lengths, (std::vector<int64_t>{3, 3}));
}

TEST(TokensTest, RaggedLinesArePaddedWithThePadId) {
  const TokenBatch b = ParseTokens("1 2 3 4\n5\n6 7", "t.txt");
  EXPECT_EQ(b.seq, 4);
  EXPECT_EQ(b.ids, (std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7}));  // packed
  EXPECT_EQ(b.offsets, (std::vector<int64_t>{0, 4, 5, 7}));
  EXPECT_EQ(b.Padded(9), (std::vector<int32_t>{1, 2, 3, 4, 5, 9, 9, 9, 6, 7, 9, 9}));
  EXPECT_EQ(b.lengths, (std::vector<int64_t>{4, 1, 2}));
}

TEST(TokensTest, BadInputNamesLineAndToken) {
  EXPECT_NE(ErrorOf("1 2\n3 x4 5").find("t.txt: line 2, token 2: 'x4'"), std::string::npos);
  EXPECT_NE(ErrorOf("1 2.5").find("line 1, token 2: '2.5'"), std::string::npos);
  EXPECT_NE(ErrorOf("99999999999").find("out of range"), std::string::npos);
  EXPECT_NE(ErrorOf("").find("no token ids"), std::string::npos);
  EXPECT_NE(ErrorOf("\n \n,\n").find("no token ids"), std::string::npos);
  EXPECT_EQ(ErrorOf("1 2\n3"), "");  // ragged lines: each its own length, no pad id needed
  EXPECT_NE(ErrorOf("+5").find("not a token id"), std::string::npos);
  // Negative ids parse; the embedding rejects them with sequence and position.
  EXPECT_EQ(ErrorOf("-1 4"), "");
}

// Pairs (a model with token types): a tab marks where segment 1 begins.
TEST(TokensTest, ATabMarksSegmentOneOfAPair) {
  const TokenBatch b = ParseTokens("101 7 8 102\t9 10 102\n5 6\n\t3 4\n1 2\t\n", "t.txt", true);
  EXPECT_EQ(b.ids, (std::vector<int32_t>{101, 7, 8, 102, 9, 10, 102, 5, 6, 3, 4, 1, 2}));
  EXPECT_EQ(b.types, (std::vector<int32_t>{0, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0}));
  EXPECT_EQ(b.offsets, (std::vector<int64_t>{0, 7, 9, 11, 13}));
  EXPECT_EQ(b.PaddedTypes(), (std::vector<int32_t>{0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0,
                                                   1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  // No line a pair: no types at all (every token of type 0).
  EXPECT_TRUE(ParseTokens("1 2\n3 4", "t.txt", true).types.empty());
  EXPECT_TRUE(ParseTokens("1 2\n3 4", "t.txt", true).PaddedTypes().empty());
}

TEST(TokensTest, WithoutTokenTypesATabIsWhiteSpace) {
  const TokenBatch b = ParseTokens("1\t2 3\t4\t5\n", "t.txt", false);
  EXPECT_EQ(b.ids, (std::vector<int32_t>{1, 2, 3, 4, 5}));
  EXPECT_TRUE(b.types.empty());
}

TEST(TokensTest, ThreeSegmentsNameTheLine) {
  try {
    ParseTokens("1 2\t3\n4\t5\t6\n", "t.txt", true);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "t.txt: line 2 holds a second tab: a line is one sequence, or a pair whose segment "
              "1 follows its one tab");
  }
}

}  // namespace
}  // namespace phasor

// The thread's recent pieces: a slot answers only for its own piece (the
// bytes, not only the hash) and its own tokenizer.
#include "tokenizers/recent_pieces.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace phasor::tokenizers {
namespace {

TEST(RecentPiecesTest, ASlotAnswersForItsPieceAndItsOwnerOnly) {
  const RecentPieces a, b;
  const int32_t ids[] = {5, 7};
  a.Put("ab", 1, ids, 2);
  std::vector<int32_t> got;
  EXPECT_TRUE(a.Get("ab", 1, got));
  EXPECT_EQ(got, (std::vector<int32_t>{5, 7}));
  got.clear();
  EXPECT_FALSE(a.Get("ac", 1, got));  // the same hash, another piece
  EXPECT_FALSE(a.Get("abc", 1, got));
  EXPECT_FALSE(a.Get("ab", 2, got));  // another hash
  EXPECT_FALSE(b.Get("ab", 1, got));  // another tokenizer's slot
  EXPECT_TRUE(got.empty());
  // A piece with no ids is kept as such; one too long or with too many ids
  // is not kept at all.
  a.Put("x", 3, nullptr, 0);
  EXPECT_TRUE(a.Get("x", 3, got));
  EXPECT_TRUE(got.empty());
  const std::string long_piece(RecentPieces::kMaxBytes + 1, 'z');
  a.Put(long_piece, 4, ids, 1);
  EXPECT_FALSE(a.Get(long_piece, 4, got));
  const std::vector<int32_t> many(RecentPieces::kMaxIds + 1, 9);
  a.Put("y", 5, many.data(), many.size());
  EXPECT_FALSE(a.Get("y", 5, got));
  // A later piece in the same slot takes it.
  a.Put("zz", 1 + RecentPieces::kSlots, ids + 1, 1);
  EXPECT_FALSE(a.Get("ab", 1, got));
  EXPECT_TRUE(a.Get("zz", 1 + RecentPieces::kSlots, got));
  EXPECT_EQ(got, (std::vector<int32_t>{7}));
}

}  // namespace
}  // namespace phasor::tokenizers

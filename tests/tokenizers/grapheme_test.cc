// The precompiled charsmap's short cut around ICU's grapheme iterator
// (AloneInItsCluster) against the iterator itself: every code point of the
// BMP and a sample beyond it, each followed by one character of every
// Grapheme_Cluster_Break class (and the Indic consonants and emoji whose
// rules look back), must end where ICU's cluster ends whenever the short cut
// answers.
#include <gtest/gtest.h>
#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/utext.h>

#include <memory>
#include <string>
#include <vector>

#include "tokenizers/precompiled_charsmap.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

TEST(GraphemeTest, AloneInItsClusterEndsWhereIcuDoes) {
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<icu::BreakIterator> it(
      icu::BreakIterator::createCharacterInstance(icu::Locale::getRoot(), status));
  ASSERT_TRUE(U_SUCCESS(status));
  // One of each class: Other (a, 中, क), ExtPict (😀), RI (🇦), Extend (U+0301,
  // the skin tone U+1F3FB), ZWJ, SpacingMark (U+0903), Prepend (U+0600), L, V,
  // T, LV (Hangul), Control, CR, LF, the virama U+094D.
  const std::vector<char32_t> next = {'a',     0x4E2D, 0x0915, 0x1F600, 0x1F1E6, 0x0301,
                                      0x1F3FB, 0x200D, 0x0903, 0x0600,  0x1100,  0x1161,
                                      0x11A8,  0xAC00, 0x0001, '\r',    '\n',    0x094D};
  std::vector<char32_t> first;
  for (char32_t c = 1; c < 0x10000; ++c)
    if (c < 0xD800 || c > 0xDFFF) first.push_back(c);
  for (char32_t c = 0x10000; c < 0x110000; c += 97) first.push_back(c);
  for (char32_t c : {0x1F600, 0x1F1E6, 0x1F3FB, 0x1F469}) first.push_back(c);
  size_t alone = 0, checked = 0;
  for (const char32_t x : first) {
    for (const char32_t y : next) {
      std::string text;
      AppendUtf8(text, x);
      AppendUtf8(text, y);
      size_t end = 0;
      if (!AloneInItsCluster(text, 0, end)) continue;
      ++alone;
      UText* ut = utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &status);
      it->setText(ut, status);
      const int32_t icu_end = it->following(0);
      utext_close(ut);
      ASSERT_TRUE(U_SUCCESS(status));
      ++checked;
      ASSERT_EQ(static_cast<size_t>(icu_end), end)
          << std::hex << "U+" << uint32_t(x) << " U+" << uint32_t(y);
    }
  }
  // The short cut answers for most pairs (else it saves nothing), and never
  // before a character that joins (Extend, ZWJ, SpacingMark).
  EXPECT_GT(alone, first.size() * 5);
  EXPECT_EQ(alone, checked);
  size_t end = 0;
  EXPECT_FALSE(AloneInItsCluster("e\xCC\x81", 0, end));                     // e + U+0301
  EXPECT_FALSE(AloneInItsCluster("\xF0\x9F\x98\x80\xE2\x80\x8D", 0, end));  // 😀 ZWJ
  EXPECT_TRUE(
      AloneInItsCluster("\xE4\xB8\xAD"
                        "a",
                        0, end));  // 中 a
  EXPECT_EQ(end, 3u);
}

}  // namespace
}  // namespace phasor::tokenizers

// Normalizers on aligned text (tokenizers/aligned_text.h): each
// character's span in the original, against spans worked out from the Rust
// crate's NormalizedString rules (and, for the NFC case, the crate's own
// offsets of Qwen3's tokens on the same text: 0-1, 2-3, 3-4 in code points).
#include "tokenizers/aligned_text.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "tokenizers/normalizer.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

// The normalized text of original, and each of its characters' spans.
std::pair<std::string, std::vector<Span>> Aligned(const nlohmann::json& spec,
                                                  const std::string& original) {
  AlignedText t;
  t.Reset(original, 0);
  MakeNormalizer(spec, "test")->NormalizeAligned(t);
  std::vector<Span> spans;
  for (size_t i = 0; i < t.text.size();) {
    spans.push_back(t.align[i]);
    NextCodePoint(t.text, i);
  }
  return {t.text, spans};
}

TEST(AlignedText, NfcFollowsEachMarkThroughReorderingAndComposition) {
  // x U+0308 U+0301 U+0323 y: U+0308 composes with x (which then removes it),
  // U+0323 moves before U+0301, and the two marks take the old places in turn.
  const auto [text, spans] = Aligned({{"type", "NFC"}}, "x\u0308\u0301\u0323y");
  EXPECT_EQ(text, "\u1e8d\u0323\u0301y");
  EXPECT_EQ(spans, (std::vector<Span>{{0, 1}, {3, 5}, {5, 7}, {7, 8}}));
}

TEST(AlignedText, BertPadsChineseAndStripsAccentsOnTheirCharacters) {
  const nlohmann::json bert = {{"type", "BertNormalizer"},
                               {"clean_text", true},
                               {"handle_chinese_chars", true},
                               {"strip_accents", nullptr},
                               {"lowercase", true}};
  // "É" (2 bytes) -> "e"; "中" (3 bytes) -> " 中 ", all three on its span; the
  // tab is a space; U+0000 is dropped.
  const auto [text, spans] = Aligned(bert, "\xc3\x89\t\xe4\xb8\xad" + std::string(1, '\0') + "a");
  EXPECT_EQ(text, "e  \xe4\xb8\xad a");
  EXPECT_EQ(spans, (std::vector<Span>{{0, 2}, {2, 3}, {3, 6}, {3, 6}, {3, 6}, {7, 8}}));
}

TEST(AlignedText, ReplaceGivesTheContentTheMatchsLastCharacter) {
  const nlohmann::json replace = {
      {"type", "Replace"}, {"pattern", {{"Regex", " {2,}"}}}, {"content", "_"}};
  const auto [text, spans] = Aligned(replace, "a   b");
  EXPECT_EQ(text, "a_b");
  EXPECT_EQ(spans, (std::vector<Span>{{0, 1}, {3, 4}, {4, 5}}));
}

TEST(AlignedText, PrependTakesTheFirstCharactersSpan) {
  const auto [text, spans] = Aligned({{"type", "Prepend"}, {"prepend", "\xe2\x96\x81"}}, "hi");
  EXPECT_EQ(text, "\xe2\x96\x81hi");
  EXPECT_EQ(spans, (std::vector<Span>{{0, 1}, {0, 1}, {1, 2}}));
}

}  // namespace
}  // namespace phasor::tokenizers

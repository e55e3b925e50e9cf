// The normalizers' rewrites on aligned text (aligned_text.h): the same text
// as their Normalize gives, each character keeping its span in the original
// as the Rust crate's NormalizedString operations (filter, map, transform,
// replace, prepend, lrstrip) keep it. Internal to phasor_tokenizers.
#pragma once

#include <string>

#include "tokenizers/aligned_text.h"
#include "tokenizers/unicode.h"

namespace phasor::tokenizers {

class Regex;

// bert.rs is_control: Cc, Cf, Co (and Cs, which valid UTF-8 never holds),
// except \t \n \r, in its Unicode 8.0 table (no Cn: unassigned code points
// are kept).
bool IsBertControl(char32_t c);
// bert.rs is_chinese_char: its own ranges (the CJK Unified Ideographs blocks
// as BERT's original code listed them), not a Unicode property.
bool IsChineseChar(char32_t c);

struct BertSteps {
  bool clean_text, chinese, strip_accents, lowercase;
};
void AlignBert(AlignedText& t, const BertSteps& steps);
void AlignForm(AlignedText& t, unicode::Form form);
void AlignLowercase(AlignedText& t);
void AlignStripAccents(AlignedText& t);
void AlignStrip(AlignedText& t, bool left, bool right);
// Every match of regex (or, without one, of literal) becomes content; the
// content takes the span of the match's last character.
void AlignReplace(AlignedText& t, const std::string& literal, const Regex* regex,
                  const std::string& content);
// prefix before a non-empty text, with the span of its first character.
void AlignPrepend(AlignedText& t, const std::string& prefix);
void AlignNmt(AlignedText& t);
void AlignByteLevel(AlignedText& t);

}  // namespace phasor::tokenizers

#include "tokenizers/token_offsets.h"

#include <algorithm>

#include "tokenizers/unicode.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

bool IsTrimmedSpace(char32_t c) { return c == 0x120 || unicode::IsWhiteSpace(c); }

}  // namespace

void TextTokens::AddOffsets(Span span, std::string_view token_text) {
  spans.push_back(span);
  uint32_t leading = 0, trailing = 0;
  thread_local std::vector<char32_t> chars;
  chars.clear();
  for (size_t i = 0; i < token_text.size();) chars.push_back(NextCodePoint(token_text, i));
  while (leading < chars.size() && IsTrimmedSpace(chars[leading])) ++leading;
  while (trailing < chars.size() && IsTrimmedSpace(chars[chars.size() - 1 - trailing])) ++trailing;
  pad.emplace_back(leading, trailing);
}

void SpansToCodePoints(std::string_view text, TextTokens& t) {
  // char_of[b]: the index of the code point byte b belongs to.
  thread_local std::vector<size_t> char_of;
  char_of.resize(text.size());
  size_t n = 0;
  for (size_t i = 0; i < text.size(); ++n) {
    const size_t len = SequenceLength(static_cast<unsigned char>(text[i]));
    for (size_t k = 0; k < len && i + k < text.size(); ++k) char_of[i + k] = n;
    i += len;
  }
  for (Span& s : t.spans) {
    if (s.first >= text.size()) continue;
    const size_t begin = char_of[s.first];
    size_t end;
    if (s.second < text.size()) {
      end = char_of[s.second];
    } else {
      end = (s.second - 1 < text.size() ? char_of[s.second - 1] : begin + 1) + 1;
    }
    s = {begin, end};
  }
}

void TrimOffsets(TextTokens& t, bool add_prefix_space) {
  for (size_t i = 0; i < t.spans.size(); ++i) {
    Span& s = t.spans[i];
    size_t leading = t.pad[i].first;
    const size_t trailing = t.pad[i].second;
    if (leading > 0) {
      const bool is_first = i == 0 || s.first == 0;
      if (is_first && add_prefix_space && leading == 1) leading = 0;
      s.first = std::min(s.first + leading, s.second);
    }
    if (trailing > 0 && s.second >= trailing) s.second = std::max(s.second - trailing, s.first);
  }
}

}  // namespace phasor::tokenizers

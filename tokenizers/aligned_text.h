// Text with its alignment to the original, as the Rust crate's
// NormalizedString keeps it: each byte of the text carries the [begin, end)
// byte span of the original text it came from (all bytes of a character the
// same span). Normalizers and pre-tokenizers rewrite it when offsets are
// asked (Tokenizer's offsets path); the spans of the tokens then map back
// through it. Internal to phasor_tokenizers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizers/utf8.h"

namespace phasor::tokenizers {

using Span = std::pair<size_t, size_t>;  // [begin, end) bytes of the original

struct AlignedText {
  std::string text;
  std::vector<Span> align;  // [text.size()] each byte's span in the original
  size_t shift = 0;         // where this text begins in the original

  // original (valid UTF-8) unchanged, its first byte at original offset shift.
  void Reset(std::string_view original, size_t original_shift);
  // The bytes [b, e) of this text (character boundaries), spans kept.
  void SliceOf(const AlignedText& from, size_t b, size_t e);
};

// One character of a rewritten text and how it relates to the old one, as
// the crate's NormalizedString::transform takes it: 0 replaces the next old
// character, 1 is inserted (it takes the span of the old character before
// it), -n replaces the next old character and removes the n after it.
struct CharChange {
  char32_t c;
  int change;
};

// The crate's transform over the whole text: the new text is changes' chars;
// initial_offset old characters are removed before the first.
void Transform(AlignedText& t, const std::vector<CharChange>& changes, size_t initial_offset);

// Rewrites each character of t by expand(c, out), which appends the code
// points it becomes (none: removed); each takes the span of the character it
// comes from, as the crate's filter, map and expansions give.
template <class Expand>
void ExpandChars(AlignedText& t, Expand expand);

// The original span of the bytes [b, e) of t, as the crate's convert_offsets
// from the normalized referential: the first byte's begin, the last byte's
// end; an empty or out-of-range [b, e) is returned as it is.
Span ToOriginal(const AlignedText& t, size_t b, size_t e);

template <class Expand>
void ExpandChars(AlignedText& t, Expand expand) {
  thread_local std::string text;
  thread_local std::vector<Span> align;
  thread_local std::vector<char32_t> chars;
  text.clear();
  align.clear();
  for (size_t i = 0; i < t.text.size();) {
    const Span span = t.align[i];
    chars.clear();
    expand(NextCodePoint(t.text, i), chars);
    for (const char32_t c : chars) {
      const size_t before = text.size();
      AppendUtf8(text, c);
      align.insert(align.end(), text.size() - before, span);
    }
  }
  t.text.swap(text);
  t.align.swap(align);
}

}  // namespace phasor::tokenizers

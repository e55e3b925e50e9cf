// The offsets of one text's tokens before the post-processor lays them out:
// their spans in the text, turned into code points when asked, and trimmed
// of the spaces a byte-level token carries, as the Rust crate's
// BytesToCharOffsetConverter and ByteLevel process_offsets do. Internal to
// phasor_tokenizers.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizers/aligned_text.h"

namespace phasor::tokenizers {

// One text's tokens, before the special tokens: ids, and on the offsets path
// each id's span and the spaces its token text begins and ends with.
struct TextTokens {
  std::vector<int32_t> ids;
  bool with_offsets = false;
  std::vector<Span> spans;                         // [ids] bytes of the text, then as asked
  std::vector<std::pair<uint32_t, uint32_t>> pad;  // [ids] leading, trailing spaces

  void Clear(bool offsets) {
    ids.clear();
    spans.clear();
    pad.clear();
    with_offsets = offsets;
  }
  void Resize(size_t n) {
    ids.resize(n);
    if (with_offsets) {
      spans.resize(n);
      pad.resize(n);
    }
  }
  // Appends the offsets-path facts of the last id: its span and token text.
  void AddOffsets(Span span, std::string_view token_text);
};

// The spans of t, bytes of text, in code points of text, as the crate's
// BytesToCharOffsetConverter: a byte inside a character counts as that
// character; an end past the text's last byte is one past the character
// before it; a span starting past the text is left as it is.
void SpansToCodePoints(std::string_view text, TextTokens& t);

// ByteLevel's process_offsets (trim_offsets): each span loses the spaces
// (U+0120 or White_Space) its token text begins and ends with, except one
// leading space of the first token when add_prefix_space put it there.
void TrimOffsets(TextTokens& t, bool add_prefix_space);

}  // namespace phasor::tokenizers

// UTF-8 as the tokenizers read it: code points decoded from valid text, the
// first invalid byte found with its offset, and Python's errors="replace".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace phasor::tokenizers {

// Decodes the code point that starts at text[i] (text valid UTF-8, i < size)
// and moves i past it.
inline char32_t NextCodePoint(std::string_view text, size_t& i) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  auto cont = [&](size_t k) { return static_cast<unsigned char>(text[i + k]) & 0x3F; };
  char32_t c;
  if (b0 < 0xE0) {
    c = (char32_t(b0 & 0x1F) << 6) | cont(1);
    i += 2;
  } else if (b0 < 0xF0) {
    c = (char32_t(b0 & 0x0F) << 12) | (char32_t(cont(1)) << 6) | cont(2);
    i += 3;
  } else {
    c = (char32_t(b0 & 0x07) << 18) | (char32_t(cont(1)) << 12) | (char32_t(cont(2)) << 6) |
        cont(3);
    i += 4;
  }
  return c;
}

// Bytes of the UTF-8 sequence that begins with lead byte b (valid text).
inline size_t SequenceLength(unsigned char b) {
  return b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
}

// Appends c (a Unicode scalar value) as UTF-8.
void AppendUtf8(std::string& out, char32_t c);

// The code points of text, as a count (text valid UTF-8).
size_t CountCodePoints(std::string_view text);

// The offset of the first byte of text that does not begin or continue a
// well-formed UTF-8 sequence (overlong forms, surrogates and values past
// U+10FFFF are ill-formed, as the Unicode standard says), or npos.
size_t FindInvalidUtf8(std::string_view text);

// text with each maximal ill-formed subpart replaced by U+FFFD, exactly as
// Python's bytes.decode("utf-8", errors="replace").
std::string ReplaceInvalidUtf8(std::string_view text);

}  // namespace phasor::tokenizers

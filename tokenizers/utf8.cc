#include "tokenizers/utf8.h"

#include <simdjson.h>

namespace phasor::tokenizers {
namespace {

// The length of the well-formed sequence at text[i], or 0 with `subpart` set
// to the bytes of its maximal ill-formed subpart (at least 1), following the
// Unicode standard's table of well-formed byte sequences (§3.9, Table 3-7).
size_t WellFormedLength(std::string_view text, size_t i, size_t& subpart) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  subpart = 1;
  if (b0 < 0x80) return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;  // nothing past U+10FFFF
  } else {
    return 0;
  }
  for (size_t k = 1; k < n; ++k) {
    if (i + k >= text.size()) return 0;
    const auto b = static_cast<unsigned char>(text[i + k]);
    const bool ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    if (!ok) return 0;
    subpart = k + 1;
  }
  return n;
}

}  // namespace

void AppendUtf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

size_t CountCodePoints(std::string_view text) {
  size_t n = 0;
  for (const char ch : text) n += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
  return n;
}

size_t FindInvalidUtf8(std::string_view text) {
  // Well-formed text, nearly all of it, is confirmed by simdjson's vectorised
  // check; the scan below finds where ill-formed text goes wrong.
  if (simdjson::validate_utf8(text.data(), text.size())) return std::string_view::npos;
  size_t i = 0;
  while (i < text.size()) {
    // Eight ASCII bytes at a time: most text is.
    while (i + 8 <= text.size()) {
      uint64_t word = 0;
      for (int k = 0; k < 8; ++k)
        word |= uint64_t(static_cast<unsigned char>(text[i + k])) << (8 * k);
      if (word & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= text.size()) break;
    size_t subpart;
    const size_t n = WellFormedLength(text, i, subpart);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string ReplaceInvalidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    size_t subpart;
    const size_t n = WellFormedLength(text, i, subpart);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      i += subpart;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace phasor::tokenizers

#include "tokenizers/precompiled_charsmap.h"

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/error.h"
#include "tokenizers/aligned_text.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

// A darts-clone unit: the fields spm_precompiled reads.
bool HasLeaf(uint32_t u) { return ((u >> 8) & 1) != 0; }
uint32_t Value(uint32_t u) { return u & ((1u << 31) - 1); }
uint32_t Label(uint32_t u) { return u & ((1u << 31) | 0xFF); }
uint32_t Offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

uint32_t ReadLe32(const std::string& bytes, size_t at) {
  return uint32_t(static_cast<unsigned char>(bytes[at])) |
         (uint32_t(static_cast<unsigned char>(bytes[at + 1])) << 8) |
         (uint32_t(static_cast<unsigned char>(bytes[at + 2])) << 16) |
         (uint32_t(static_cast<unsigned char>(bytes[at + 3])) << 24);
}

bool IsValidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const auto n = static_cast<int32_t>(s.size());
  for (int32_t i = 0; i < n;) {
    UChar32 c;
    U8_NEXT(p, i, n, c);
    if (c < 0) return false;
  }
  return true;
}

// Grapheme_Cluster_Break of c: for the BMP from a table made once (64 KiB,
// a millisecond), since ICU's property lookup would be most of the cost.
int GraphemeBreak(UChar32 c) {
  static const std::array<uint8_t, 0x10000> bmp = [] {
    std::array<uint8_t, 0x10000> t{};
    for (UChar32 k = 0; k < 0x10000; ++k)
      t[k] = static_cast<uint8_t>(u_getIntPropertyValue(k, UCHAR_GRAPHEME_CLUSTER_BREAK));
    return t;
  }();
  return c < 0x10000 ? bmp[c] : u_getIntPropertyValue(c, UCHAR_GRAPHEME_CLUSTER_BREAK);
}

// One character BreakIterator per thread: creating one costs far more than
// using it, and one instance must not be shared between threads.
icu::BreakIterator& GraphemeIterator(const std::string& where) {
  thread_local std::unique_ptr<icu::BreakIterator> it;
  if (!it) {
    UErrorCode status = U_ZERO_ERROR;
    it.reset(icu::BreakIterator::createCharacterInstance(icu::Locale::getRoot(), status));
    if (U_FAILURE(status) || !it)
      throw Error(where + ": ICU has no grapheme cluster rules (" + u_errorName(status) + ")");
  }
  return *it;
}

struct UTextCloser {
  void operator()(UText* t) const { utext_close(t); }
};

// The thread's grapheme iterator set on text (n bytes of UTF-8), which utext
// then holds open.
icu::BreakIterator* GraphemesOf(const char* text, size_t n, const std::string& where,
                                std::unique_ptr<UText, UTextCloser>& utext) {
  UErrorCode status = U_ZERO_ERROR;
  utext.reset(utext_openUTF8(nullptr, text, static_cast<int64_t>(n), &status));
  icu::BreakIterator* clusters = &GraphemeIterator(where);
  clusters->setText(utext.get(), status);
  if (U_FAILURE(status)) {
    throw Error(where + ": ICU cannot split the text into graphemes (" + u_errorName(status) + ")");
  }
  return clusters;
}

}  // namespace

// Whether the code point at i is a grapheme cluster of its own, and where it
// ends (end): so when its Grapheme_Cluster_Break is Other and the one after
// it (if any) is none of Extend, ZWJ and SpacingMark, the only classes that
// join what comes before them (UAX #29: GB9, GB9a; an Other is no Prepend, CR,
// Hangul syllable or regional indicator, whose rules look forward). ICU's own
// property data: the iterator's answer, without its cost.
bool AloneInItsCluster(std::string_view text, size_t i, size_t& end) {
  size_t j = i;
  const auto c = static_cast<UChar32>(NextCodePoint(text, j));
  if (GraphemeBreak(c) != U_GCB_OTHER) return false;
  if (j < text.size()) {
    size_t k = j;
    const auto next = static_cast<UChar32>(NextCodePoint(text, k));
    const int gcb = GraphemeBreak(next);
    if (gcb == U_GCB_EXTEND || gcb == U_GCB_ZWJ || gcb == U_GCB_SPACING_MARK) return false;
  }
  end = j;
  return true;
}


PrecompiledCharsmap::PrecompiledCharsmap(const std::string& bytes, const std::string& where)
    : where_(where) {
  if (bytes.size() < 4)
    throw Error(where + ": cannot parse the charsmap (" + std::to_string(bytes.size()) +
                " bytes, fewer than its 4-byte header)");
  const size_t units = ReadLe32(bytes, 0) / 4;
  if (units == 0) throw Error(where + ": cannot parse the charsmap (its trie is empty)");
  if (units > (bytes.size() - 4) / 4)
    throw Error(where + ": cannot parse the charsmap (its header gives a trie of " +
                std::to_string(units) + " units, more than its " + std::to_string(bytes.size()) +
                " bytes hold)");
  trie_.resize(units);
  for (size_t k = 0; k < units; ++k) trie_[k] = ReadLe32(bytes, 4 + 4 * k);
  replacements_ = bytes.substr(4 + 4 * units);
  if (!IsValidUtf8(replacements_))
    throw Error(where + ": cannot parse the charsmap (its replacement strings are not UTF-8)");
  for (int b = 1; b < 128; ++b) {
    const char c = static_cast<char>(b);
    if (auto r = Transform(std::string_view(&c, 1))) ascii_[b] = std::string(*r);
  }
}

uint32_t PrecompiledCharsmap::Unit(size_t pos) const {
  if (pos >= trie_.size())
    throw Error(where_ + ": the charsmap is corrupt (its trie points past its " +
                std::to_string(trie_.size()) + " units)");
  return trie_[pos];
}

std::optional<std::string_view> PrecompiledCharsmap::Transform(std::string_view key) const {
  size_t pos = Offset(Unit(0));
  for (const char ch : key) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == 0) break;
    pos ^= c;
    const uint32_t unit = Unit(pos);
    if (Label(unit) != c) return std::nullopt;
    pos ^= Offset(unit);
    if (HasLeaf(unit)) {
      // The first leaf on the path: the shortest key, as the crate's
      // transform() takes results[0] of its common-prefix search.
      const size_t at = Value(Unit(pos));
      if (at > replacements_.size() ||
          (at < replacements_.size() &&
           (static_cast<unsigned char>(replacements_[at]) & 0xC0) == 0x80))
        throw Error(where_ + ": the charsmap is corrupt (a replacement offset, " +
                    std::to_string(at) + ", is not the start of a character of its " +
                    std::to_string(replacements_.size()) + " bytes of replacements)");
      size_t end = replacements_.find('\0', at);
      if (end == std::string::npos) end = replacements_.size();
      return std::string_view(replacements_).substr(at, end - at);
    }
  }
  return std::nullopt;
}

void PrecompiledCharsmap::AppendCluster(std::string_view cluster, std::string& out) const {
  if (cluster.size() < 6) {
    if (auto r = Transform(cluster)) {
      out += *r;
      return;
    }
  }
  for (size_t i = 0; i < cluster.size();) {
    const size_t n = SequenceLength(static_cast<unsigned char>(cluster[i]));
    const std::string_view cp = cluster.substr(i, n);
    if (auto r = Transform(cp)) {
      out += *r;
    } else {
      out += cp;
    }
    i += n;
  }
}

std::string PrecompiledCharsmap::Apply(std::string_view text) const {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  const size_t n = text.size();
  std::unique_ptr<UText, UTextCloser> utext;
  icu::BreakIterator* clusters = nullptr;
  for (size_t i = 0; i < n;) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80 && (i + 1 == n || static_cast<unsigned char>(text[i + 1]) < 0x80)) {
      // Between two ASCII characters there is always a cluster boundary,
      // except inside CR LF (UAX #29 GB3); no ASCII character joins the
      // cluster before it, so i is a boundary here too.
      if (b == '\r' && i + 1 < n && text[i + 1] == '\n') {
        AppendCluster(text.substr(i, 2), out);
        i += 2;
      } else {
        if (ascii_[b]) {
          out += *ascii_[b];
        } else {
          out.push_back(static_cast<char>(b));
        }
        ++i;
      }
      continue;
    }
    size_t end = 0;
    if (!AloneInItsCluster(text, i, end)) {
      if (clusters == nullptr) clusters = GraphemesOf(text.data(), n, where_, utext);
      const int32_t e = clusters->following(static_cast<int32_t>(i));
      end =
          e == icu::BreakIterator::DONE || static_cast<size_t>(e) <= i ? n : static_cast<size_t>(e);
    }
    AppendCluster(text.substr(i, end - i), out);
    i = end;
  }
  return out;
}

namespace {

// precompiled.rs replace(): the new part's characters replace (0); when it
// has more characters than the old part, its last extra ones are inserted
// (1); when fewer, the last change pushed so far (possibly an earlier
// cluster's) removes the difference.
void PushReplacement(std::string_view old_part, std::string_view new_part,
                     std::vector<CharChange>& changes) {
  const auto old_count = static_cast<int>(CountCodePoints(old_part));
  const auto new_count = static_cast<int>(CountCodePoints(new_part));
  for (size_t i = 0; i < new_part.size();) changes.push_back({NextCodePoint(new_part, i), 0});
  const int diff = new_count - old_count;
  if (diff > 0) {
    for (int k = 0; k < diff; ++k) changes[changes.size() - 1 - k].change = 1;
  } else if (diff < 0 && !changes.empty()) {
    changes.back().change += diff;
  }
}

}  // namespace

bool PrecompiledCharsmap::ClusterChanges(std::string_view cluster,
                                         std::vector<CharChange>& changes) const {
  if (cluster.size() < 6) {
    if (auto r = Transform(cluster)) {
      PushReplacement(cluster, *r, changes);
      return true;
    }
  }
  bool modified = false;
  for (size_t i = 0; i < cluster.size();) {
    const size_t n = SequenceLength(static_cast<unsigned char>(cluster[i]));
    const std::string_view cp = cluster.substr(i, n);
    if (auto r = Transform(cp)) {
      PushReplacement(cp, *r, changes);
      modified = true;
    } else {
      size_t k = 0;
      changes.push_back({NextCodePoint(cp, k), 0});
    }
    i += n;
  }
  return modified;
}

void PrecompiledCharsmap::ApplyAligned(AlignedText& t) const {
  const std::string_view text = t.text;
  const size_t n = text.size();
  std::vector<CharChange> changes;
  bool modified = false;
  std::unique_ptr<UText, UTextCloser> utext;
  icu::BreakIterator* clusters = nullptr;
  for (size_t i = 0; i < n;) {
    const auto b = static_cast<unsigned char>(text[i]);
    size_t end = i + 1;
    if (b < 0x80 && (i + 1 == n || static_cast<unsigned char>(text[i + 1]) < 0x80)) {
      if (b == '\r' && i + 1 < n && text[i + 1] == '\n') end = i + 2;  // as Apply
    } else if (!AloneInItsCluster(text, i, end)) {
      if (clusters == nullptr) clusters = GraphemesOf(text.data(), n, where_, utext);
      const int32_t e = clusters->following(static_cast<int32_t>(i));
      end =
          e == icu::BreakIterator::DONE || static_cast<size_t>(e) <= i ? n : static_cast<size_t>(e);
    }
    modified |= ClusterChanges(text.substr(i, end - i), changes);
    i = end;
  }
  if (modified) tokenizers::Transform(t, changes, 0);
}

}  // namespace phasor::tokenizers

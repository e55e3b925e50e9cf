#include "tokenizers/normalizers_aligned.h"

#include <algorithm>
#include <string>
#include <vector>

#include "tokenizers/pre_tokenizer.h"
#include "tokenizers/regex.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

void Decode(const std::string& s, std::vector<char32_t>& out) {
  for (size_t i = 0; i < s.size();) out.push_back(NextCodePoint(s, i));
}

void LowerChars(char32_t c, std::vector<char32_t>& out) {
  thread_local std::string s;
  s.clear();
  unicode::AppendLowercase(s, c);
  Decode(s, out);
}

bool IsBertWhiteSpace(char32_t c) {
  return c == '\t' || c == '\n' || c == '\r' || unicode::IsWhiteSpace(c);
}

}  // namespace

// ---- The crate's own predicates (moved here from normalizers.cc) -----------

bool IsBertControl(char32_t c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  if (c < 0x80) return c < 0x20 || c == 0x7F;
  return unicode::IsOtherAssignedUnicode8(c);
}

bool IsChineseChar(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

// bert.rs: clean (filter, then map white space to ' '), pad CJK (' ', c, ' '
// all with c's span), strip accents (NFD, then filter Mn), lowercase.
void AlignBert(AlignedText& t, const BertSteps& steps) {
  if (steps.clean_text) {
    ExpandChars(t, [](char32_t c, std::vector<char32_t>& out) {
      if (c == 0 || c == 0xFFFD || IsBertControl(c)) return;
      out.push_back(IsBertWhiteSpace(c) ? U' ' : c);
    });
  }
  if (steps.chinese) {
    ExpandChars(t, [](char32_t c, std::vector<char32_t>& out) {
      if (IsChineseChar(c)) {
        out.insert(out.end(), {U' ', c, U' '});
      } else {
        out.push_back(c);
      }
    });
  }
  if (steps.strip_accents) {
    AlignForm(t, unicode::Form::kNfd);
    ExpandChars(t, [](char32_t c, std::vector<char32_t>& out) {
      if (!unicode::IsNonspacingMarkUnicode8(c)) out.push_back(c);
    });
  }
  if (steps.lowercase) AlignLowercase(t);
}

// One run's characters followed through normalisation as
// unicode-normalization-alignments does: each decomposes (its first part
// replacing it: 0, the rest inserted: 1), marks are put in canonical order
// (each keeping its change), and for NFC/NFKC each mark a starter absorbs
// makes the starter remove one more old character (-1), unless the mark was
// itself inserted. False if the characters are not ICU's normal form of the
// run (they then take the old characters' places in order).
bool FollowRun(std::string_view run, unicode::Form form, const std::vector<char32_t>& want,
               std::vector<CharChange>& out) {
  thread_local std::vector<CharChange> items, composed;
  thread_local std::u32string parts;
  items.clear();
  for (size_t i = 0; i < run.size();) {
    parts.clear();
    unicode::Decompose(NextCodePoint(run, i), form, parts);
    for (size_t k = 0; k < parts.size(); ++k) items.push_back({parts[k], k == 0 ? 0 : 1});
  }
  for (size_t i = 0; i < items.size();) {  // canonical order: marks by class, stable
    size_t j = i;
    while (j < items.size() && unicode::CombiningClass(items[j].c) != 0) ++j;
    std::stable_sort(items.begin() + static_cast<std::ptrdiff_t>(i),
                     items.begin() + static_cast<std::ptrdiff_t>(j),
                     [](const CharChange& x, const CharChange& y) {
                       return unicode::CombiningClass(x.c) < unicode::CombiningClass(y.c);
                     });
    i = j == i ? i + 1 : j;
  }
  const bool compose = form == unicode::Form::kNfc || form == unicode::Form::kNfkc;
  composed.clear();
  int starter = -1, last_class = 0;
  for (const CharChange& item : items) {
    const int cc = unicode::CombiningClass(item.c);
    if (compose && starter >= 0) {
      const bool adjacent = static_cast<int>(composed.size()) - 1 == starter;
      const int32_t pair = unicode::ComposePair(composed[starter].c, item.c);
      if (pair >= 0 && (adjacent || (last_class != 0 && last_class < cc))) {
        composed[starter].c = static_cast<char32_t>(pair);
        if (item.change <= 0) composed[starter].change -= 1;
        continue;
      }
    }
    if (cc == 0) starter = static_cast<int>(composed.size());
    last_class = cc;
    composed.push_back(item);
  }
  if (composed.size() != want.size()) return false;
  for (size_t k = 0; k < want.size(); ++k)
    if (composed[k].c != want[k]) return false;
  out.insert(out.end(), composed.begin(), composed.end());
  return true;
}

// The crate's nfd()/nfc()... over the text: each run from one normalisation
// boundary to the next is followed through its normal form (FollowRun).
void AlignForm(AlignedText& t, unicode::Form form) {
  thread_local std::vector<CharChange> changes;
  thread_local std::vector<char32_t> chars;
  changes.clear();
  bool after_unassigned = false;
  size_t run_begin = 0, run_chars = 0;
  auto flush = [&](size_t run_end) {
    if (run_chars == 0) return;
    const std::string_view run = std::string_view(t.text).substr(run_begin, run_end - run_begin);
    chars.clear();
    Decode(unicode::Normalize(run, form), chars);
    if (FollowRun(run, form, chars, changes)) return;
    const size_t n = run_chars, m = chars.size();
    for (size_t k = 0; k < m; ++k) {
      int change = k < n ? 0 : 1;
      if (m < n && k + 1 == m) change = -static_cast<int>(n - m);
      changes.push_back({chars[k], change});
    }
  };
  for (size_t i = 0; i < t.text.size();) {
    const size_t b = i;
    const char32_t c = NextCodePoint(t.text, i);
    if (after_unassigned || unicode::HasBoundaryBefore(c, form)) {
      flush(b);
      run_begin = b;
      run_chars = 0;
    }
    ++run_chars;
    after_unassigned = c >= 0x80 && unicode::IsAssignedAfterUnicode9(c);
  }
  flush(t.text.size());
  Transform(t, changes, 0);
}

void AlignLowercase(AlignedText& t) { ExpandChars(t, LowerChars); }

void AlignStripAccents(AlignedText& t) {
  ExpandChars(t, [](char32_t c, std::vector<char32_t>& out) {
    if (!unicode::IsMarkUnicode9(c)) out.push_back(c);
  });
}

void AlignStrip(AlignedText& t, bool left, bool right) {
  size_t begin = 0, end = t.text.size();
  if (left) {
    while (begin < end) {
      size_t i = begin;
      if (!unicode::IsWhiteSpace(NextCodePoint(t.text, i))) break;
      begin = i;
    }
  }
  if (right) {
    while (end > begin) {
      size_t b = end - 1;
      while (b > begin && (static_cast<unsigned char>(t.text[b]) & 0xC0) == 0x80) --b;
      size_t i = b;
      if (!unicode::IsWhiteSpace(NextCodePoint(t.text, i))) break;
      end = b;
    }
  }
  AlignedText out;
  out.SliceOf(t, begin, end);
  out.shift = t.shift;
  t = std::move(out);
}

void AlignReplace(AlignedText& t, const std::string& literal, const Regex* regex,
                  const std::string& content) {
  std::vector<std::pair<size_t, size_t>> matches;
  if (regex) {
    matches = regex->FindAll(t.text);
  } else {
    for (size_t at = t.text.find(literal); at != std::string::npos;
         at = t.text.find(literal, at + literal.size()))
      matches.emplace_back(at, at + literal.size());
  }
  if (matches.empty()) return;
  AlignedText out;
  out.shift = t.shift;
  size_t prev = 0;
  for (const auto& [b, e] : matches) {
    out.text.append(t.text, prev, b - prev);
    out.align.insert(out.align.end(), t.align.begin() + static_cast<std::ptrdiff_t>(prev),
                     t.align.begin() + static_cast<std::ptrdiff_t>(b));
    const Span span = e >= 1 ? t.align[e - 1] : Span{t.shift, t.shift};
    out.text += content;
    out.align.insert(out.align.end(), content.size(), span);
    prev = e;
  }
  out.text.append(t.text, prev, std::string::npos);
  out.align.insert(out.align.end(), t.align.begin() + static_cast<std::ptrdiff_t>(prev),
                   t.align.end());
  t = std::move(out);
}

void AlignPrepend(AlignedText& t, const std::string& prefix) {
  if (t.text.empty()) return;
  t.text.insert(0, prefix);
  t.align.insert(t.align.begin(), prefix.size(), t.align[0]);
}

void AlignNmt(AlignedText& t) {
  ExpandChars(t, [](char32_t c, std::vector<char32_t>& out) {
    if ((c >= 0x01 && c <= 0x08) || c == 0x0B || (c >= 0x0E && c <= 0x1F) || c == 0x7F ||
        c == 0x8F || c == 0x9F)
      return;
    const bool space = c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D || c == 0x1680 ||
                       (c >= 0x200B && c <= 0x200F) || c == 0x2028 || c == 0x2029 || c == 0x2581 ||
                       c == 0xFEFF || c == 0xFFFD;
    out.push_back(space ? U' ' : c);
  });
}

void AlignByteLevel(AlignedText& t) {
  ExpandChars(t, [](char32_t c, std::vector<char32_t>& out) {
    std::string bytes;
    AppendUtf8(bytes, c);
    for (const char b : bytes) out.push_back(ByteToUnicode(static_cast<unsigned char>(b)));
  });
}

}  // namespace phasor::tokenizers

// The Unicode facts of unicode.h, answered by ICU (icu-uc). ASCII is answered
// without ICU where the answer is fixed by the standard, since most text the
// tokenizers see is mostly ASCII.
#include "tokenizers/unicode.h"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/ustring.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <string>

#include "engine/error.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers::unicode {
namespace {

struct RegexCategoryChange {
  const char* name;
  const CodePointRange* add;
  size_t add_size;
  const CodePointRange* remove;
  size_t remove_size;
};

struct CaseMapping {
  char32_t from, to;
};

#include "tokenizers/unicode_tables.inc"

template <size_t N>
bool InTable(const CodePointRange (&table)[N], char32_t c) {
  const CodePointRange* it = std::upper_bound(
      table, table + N, c, [](char32_t v, const CodePointRange& r) { return v < r.first; });
  return it != table && c <= (it - 1)->last;
}

// InTable of one of the Unicode 8.0 / 9.0 tables that BERT's normalizer and
// pre-tokenizer ask of every character: for the BMP from a bit set of the
// table made once (8 KiB), no search.
template <const auto& Table>
bool InTableFast(char32_t c) {
  if (c >= 0x10000) return InTable(Table, c);
  static const std::array<uint64_t, 0x10000 / 64> bits = [] {
    std::array<uint64_t, 0x10000 / 64> b{};
    for (const CodePointRange& r : Table)
      for (char32_t k = r.first; k <= r.last && k < 0x10000; ++k)
        b[k >> 6] |= uint64_t{1} << (k & 63);
    return b;
  }();
  return (bits[c >> 6] >> (c & 63)) & 1;
}

bool InCategories(char32_t c, uint32_t mask) {
  return (U_GET_GC_MASK(static_cast<UChar32>(c)) & mask) != 0;
}

void AppendCodePoint(std::string& out, UChar32 c) {
  char buf[U8_MAX_LENGTH];
  int32_t n = 0;
  U8_APPEND_UNSAFE(buf, n, c);
  out.append(buf, static_cast<size_t>(n));
}

const icu::Normalizer2& Instance(Form form) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* n = nullptr;
  switch (form) {
    case Form::kNfc:
      n = icu::Normalizer2::getNFCInstance(status);
      break;
    case Form::kNfd:
      n = icu::Normalizer2::getNFDInstance(status);
      break;
    case Form::kNfkc:
      n = icu::Normalizer2::getNFKCInstance(status);
      break;
    case Form::kNfkd:
      n = icu::Normalizer2::getNFKDInstance(status);
      break;
  }
  if (U_FAILURE(status) || n == nullptr)
    throw Error(std::string("unicode: ICU has no normalization data: ") + u_errorName(status));
  return *n;
}

}  // namespace

bool IsMark(char32_t c) { return c >= 0x80 && InCategories(c, U_GC_M_MASK); }
bool IsNonspacingMark(char32_t c) { return c >= 0x80 && InCategories(c, U_GC_MN_MASK); }
bool IsPunctuation(char32_t c) { return InCategories(c, U_GC_P_MASK); }
bool IsOther(char32_t c) { return InCategories(c, U_GC_C_MASK); }
bool IsLetter(char32_t c) {
  if (c < 0x80) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
  return InCategories(c, U_GC_L_MASK);
}
bool IsNumber(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  return InCategories(c, U_GC_N_MASK);
}
bool IsWhiteSpace(char32_t c) {
  // ASCII White_Space: \t \n \v \f \r and ' '.
  if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0D);
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_WHITE_SPACE);
}

bool IsRegexCrateWord(char32_t c) {
  constexpr uint32_t kWordCategories = U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK;
  const auto cp = static_cast<UChar32>(c);
  return u_hasBinaryProperty(cp, UCHAR_ALPHABETIC) || InCategories(c, kWordCategories) ||
         u_hasBinaryProperty(cp, UCHAR_JOIN_CONTROL) || InTable(kWordAddedUnicode16, c);
}
bool IsNumericRust(char32_t c) { return IsNumber(c) || InTable(kNumberAddedUnicode17, c); }
bool IsPunctuationUnicode8(char32_t c) { return InTableFast<kUnicode8Punctuation>(c); }
bool IsOtherAssignedUnicode8(char32_t c) { return InTableFast<kUnicode8Other>(c); }
bool IsNonspacingMarkUnicode8(char32_t c) { return InTableFast<kUnicode8NonspacingMark>(c); }
bool IsMarkUnicode9(char32_t c) { return InTable(kUnicode9Mark, c); }
bool IsAssignedAfterUnicode9(char32_t c) { return InTable(kUnicode9Unassigned, c); }

int RegexChangesBaseVersion() { return kPcre2UnicodeVersion; }

bool RegexCategoryChange(std::string_view name, std::vector<CodePointRange>& add,
                         std::vector<CodePointRange>& remove) {
  for (const auto& change : kRegexCategoryChanges) {
    if (name != change.name) continue;
    // An empty table holds one range past U+10FFFF.
    add.clear();
    remove.clear();
    for (size_t i = 0; i < change.add_size; ++i)
      if (change.add[i].first <= 0x10FFFF) add.push_back(change.add[i]);
    for (size_t i = 0; i < change.remove_size; ++i)
      if (change.remove[i].first <= 0x10FFFF) remove.push_back(change.remove[i]);
    return true;
  }
  return false;
}

void AppendLowercase(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
    return;
  }
  // Rust's std (Unicode 17.0) before ICU 72's Unicode 15.0.
  const CaseMapping* it =
      std::lower_bound(std::begin(kLowercaseChanges), std::end(kLowercaseChanges), c,
                       [](const CaseMapping& m, char32_t v) { return m.from < v; });
  if (it != std::end(kLowercaseChanges) && it->from == c) {
    AppendCodePoint(out, static_cast<UChar32>(it->to));
    return;
  }
  const auto cp = static_cast<UChar32>(c);
  if (!u_hasBinaryProperty(cp, UCHAR_CHANGES_WHEN_LOWERCASED)) {
    AppendCodePoint(out, cp);
    return;
  }
  // u_strToLower on the code point alone: the full mapping (SpecialCasing's
  // unconditional entries, e.g. U+0130 -> i + U+0307) with no neighbours, so
  // the only contextual rule of the root locale (Final_Sigma) never fires,
  // as with Rust's char::to_lowercase.
  UChar src[2];
  int32_t src_len = 0;
  U16_APPEND_UNSAFE(src, src_len, cp);
  UChar dst[8];
  UErrorCode status = U_ZERO_ERROR;
  const int32_t n = u_strToLower(dst, 8, src, src_len, "", &status);
  if (U_FAILURE(status)) {
    AppendCodePoint(out, u_tolower(cp));
    return;
  }
  for (int32_t i = 0; i < n;) {
    UChar32 d;
    U16_NEXT_UNSAFE(dst, i, d);
    AppendCodePoint(out, d);
  }
}

namespace {

// text (valid UTF-8, no character unassigned in 9.0) in the form, by ICU.
void AppendNormalized(std::string& out, std::string_view text, Form form) {
  size_t i = 0;
  while (i < text.size() && static_cast<unsigned char>(text[i]) < 0x80) ++i;
  // ASCII is invariant under all four forms.
  if (i == text.size()) {
    out.append(text);
    return;
  }
  const icu::Normalizer2& n = Instance(form);
  const icu::StringPiece piece(text.data(), static_cast<int32_t>(text.size()));
  UErrorCode status = U_ZERO_ERROR;
  // Text already in the form (most text, for NFC) costs one scan and a copy.
  if (n.isNormalizedUTF8(piece, status) && U_SUCCESS(status)) {
    out.append(text);
    return;
  }
  status = U_ZERO_ERROR;
  icu::StringByteSink<std::string> sink(&out);
  n.normalizeUTF8(0, piece, sink, nullptr, status);
  if (U_FAILURE(status))
    throw Error(std::string("unicode: normalization failed: ") + u_errorName(status));
}

}  // namespace

std::string Normalize(std::string_view text, Form form) {
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  // Pieces between the characters 9.0 had not assigned, each normalised alone.
  size_t start = 0;
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t b = i;
    const char32_t c = NextCodePoint(text, i);
    if (!IsAssignedAfterUnicode9(c)) continue;
    AppendNormalized(out, text.substr(start, b - start), form);
    out.append(text, b, i - b);
    start = i;
  }
  AppendNormalized(out, text.substr(start), form);
  return out;
}

bool HasBoundaryBefore(char32_t c, Form form) {
  return c < 0x80 || IsAssignedAfterUnicode9(c) ||
         Instance(form).hasBoundaryBefore(static_cast<UChar32>(c));
}

void Decompose(char32_t c, Form form, std::u32string& out) {
  const Form kind = form == Form::kNfc || form == Form::kNfd ? Form::kNfd : Form::kNfkd;
  icu::UnicodeString d;
  if (c < 0x80 || !Instance(kind).getDecomposition(static_cast<UChar32>(c), d)) {
    out.push_back(c);
    return;
  }
  for (int32_t i = 0; i < d.length();) {
    const UChar32 cp = d.char32At(i);
    out.push_back(static_cast<char32_t>(cp));
    i += U16_LENGTH(cp);
  }
}

int CombiningClass(char32_t c) {
  return c < 0x80 ? 0 : u_getCombiningClass(static_cast<UChar32>(c));
}

int32_t ComposePair(char32_t a, char32_t b) {
  return Instance(Form::kNfc).composePair(static_cast<UChar32>(a), static_cast<UChar32>(b));
}

}  // namespace phasor::tokenizers::unicode

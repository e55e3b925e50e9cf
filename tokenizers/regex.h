// Regular expressions of tokenizer.json (Replace normalizers, Split and
// ByteLevel pre-tokenizers), run by PCRE2 (Debian libpcre2-dev) in UTF mode
// with Unicode properties, JIT-compiled where the platform has a JIT.
//
// The Rust crate compiles these patterns with Oniguruma (Ruby syntax). PCRE2
// reads nearly all of that syntax the same; where the two differ in meaning,
// the pattern is rewritten before it is compiled so that it matches what
// Oniguruma matches:
//   \s  Oniguruma: White_Space (U+0009-000D, U+0085, Z*). PCRE2 (UCP) also
//       takes U+180E. Written as [\t-\r\x{85}\p{Z}].
//   \w  Oniguruma: Alphabetic, M*, Nd, Pc, and the Latin-1 superscripts and
//       fractions U+00B2 U+00B3 U+00B9 U+00BC-00BE (the class @huggingface/
//       tokenizers' Oniguruma rewriter uses). PCRE2 10.42 (UCP): L*, N*,
//       '_'. Written out as that class; \b and \B as look-arounds on it.
//   \p{..} of a General_Category (L, Lu, N, P, ...) or Alphabetic: Oniguruma
//       has Unicode 16.0, PCRE2 10.42 14.0. Given the code points 16.0 moved
//       in or out (unicode.h RegexCategoryChange); \w's parts likewise.
//   \h  Oniguruma: a hexadecimal digit. PCRE2: horizontal white space.
//       Written as [0-9a-fA-F].
// \S, \W and \H become the negated classes outside a character class; inside
// one ([^\S] and the like) they keep PCRE2's meaning, since a class cannot
// hold a negated class. \d is \p{Nd} in both. Oniguruma-only syntax that
// PCRE2 does not read (e.g. the absent operator (?~...)) fails to compile and is
// refused with an Error naming the pattern.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct pcre2_real_code_8;

namespace phasor::tokenizers {

class Regex {
 public:
  // Compiles an Oniguruma-syntax pattern. where names the pattern in
  // messages ("tokenizer.json: pre_tokenizer.pattern.Regex"); a pattern PCRE2
  // cannot compile throws Error with PCRE2's reason and offset.
  Regex(const std::string& pattern, const std::string& where);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // The [begin, end) byte spans of the successive non-overlapping matches in
  // text (valid UTF-8), leftmost first, as the Rust crate's find_iter gives
  // them: an empty match right where the previous match ended is skipped.
  // Const and reentrant: the compiled pattern is shared, the match data is
  // the calling thread's own.
  std::vector<std::pair<size_t, size_t>> FindAll(std::string_view text) const;
  // The same into spans (cleared first), with this thread's match data:
  // nothing is allocated once spans has grown.
  void FindAll(std::string_view text, std::vector<std::pair<size_t, size_t>>& spans) const;

  // pattern with every regex metacharacter escaped, so that it matches
  // itself (what the Rust crate does to a {"String": s} pattern).
  static std::string Escape(std::string_view literal);

  // The Unicode version of PCRE2's own tables ("14.0.0" for 10.42): the base
  // that unicode_tables.inc's regex changes are written against.
  static std::string UnicodeVersion();

 private:
  pcre2_real_code_8* code_ = nullptr;
  std::string where_;
  // [256] whether a match can begin with the byte (PCRE2's start bitmap),
  // when has_first_bytes_.
  std::array<bool, 256> first_bytes_{};
  bool has_first_bytes_ = false;
};

}  // namespace phasor::tokenizers

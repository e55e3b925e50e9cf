// The Unicode facts the tokenizers need, answered by ICU (Debian libicu-dev):
// general categories, white space, case mapping and normalisation forms. No
// table here is hand-made; the tokenizers' own definitions (BERT's
// punctuation, its CJK ranges) are written where they are used, as the
// library they follow writes them.
#pragma once

#include <string>
#include <string_view>

namespace phasor::tokenizers::unicode {

// General category tests on one code point.
bool IsMark(char32_t c);            // M* (Mn, Mc, Me)
bool IsNonspacingMark(char32_t c);  // Mn
bool IsPunctuation(char32_t c);     // P*
bool IsOther(char32_t c);           // C* (Cc, Cf, Cs, Co, Cn)
bool IsLetter(char32_t c);          // L*
bool IsNumber(char32_t c);          // N*
bool IsWhiteSpace(char32_t c);      // the White_Space property

// Appends the full lowercase mapping of c, code point by code point, without
// context (U+0130 gives "i̇"; a capital sigma always gives σ), as Rust's
// char::to_lowercase does.
void AppendLowercase(std::string& out, char32_t c);

enum class Form { kNfc, kNfd, kNfkc, kNfkd };
// text (valid UTF-8) in the given normalisation form.
std::string Normalize(std::string_view text, Form form);

}  // namespace phasor::tokenizers::unicode

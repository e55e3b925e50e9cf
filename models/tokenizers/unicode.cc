// Placeholder until the ICU-backed implementation lands.
#include "models/tokenizers/unicode.h"

#include "engine/error.h"

namespace phasor::tokenizers::unicode {
bool IsMark(char32_t) { throw Error("unicode: not implemented"); }
bool IsNonspacingMark(char32_t) { throw Error("unicode: not implemented"); }
bool IsPunctuation(char32_t) { throw Error("unicode: not implemented"); }
bool IsOther(char32_t) { throw Error("unicode: not implemented"); }
bool IsLetter(char32_t) { throw Error("unicode: not implemented"); }
bool IsNumber(char32_t) { throw Error("unicode: not implemented"); }
bool IsWhiteSpace(char32_t) { throw Error("unicode: not implemented"); }
void AppendLowercase(std::string&, char32_t) { throw Error("unicode: not implemented"); }
std::string Normalize(std::string_view, Form) { throw Error("unicode: not implemented"); }
}  // namespace phasor::tokenizers::unicode

// The normalizers of tokenizer.json, each the Hugging Face tokenizers (Rust
// crate) normalizer of the same "type": same fields, same defaults (a field
// the crate requires is required here too), same output text.
#include <unicode/uchar.h>

#include <array>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/error.h"
#include "tokenizers/aligned_text.h"
#include "tokenizers/fields.h"
#include "tokenizers/kinds.h"
#include "tokenizers/normalizer.h"
#include "tokenizers/normalizers_aligned.h"
#include "tokenizers/pre_tokenizer.h"
#include "tokenizers/precompiled_charsmap.h"
#include "tokenizers/regex.h"
#include "tokenizers/unicode.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

using nlohmann::json;
using NormalizerPtr = std::unique_ptr<Normalizer>;

// Appends the code points of text for which keep(c) holds.
template <class Keep>
std::string Filter(const std::string& text, Keep keep) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t b = i;
    const char32_t c = NextCodePoint(text, i);
    if (keep(c)) out.append(text, b, i - b);
  }
  return out;
}

bool IsAscii(const std::string& text) {
  for (const char c : text)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

// ---- BertNormalizer (normalizers/bert.rs) -----------------------------------

class BertNormalizer final : public Normalizer {
 public:
  BertNormalizer(bool clean_text, bool chinese, bool strip_accents, bool lowercase)
      : clean_text_(clean_text),
        chinese_(chinese),
        strip_accents_(strip_accents),
        lowercase_(lowercase) {}

  void NormalizeAligned(AlignedText& t) const override {
    AlignBert(t, {clean_text_, chinese_, strip_accents_, lowercase_});
  }

  void Normalize(std::string& text) const override {
    // Steps in the crate's order: clean, pad CJK, strip accents, lowercase.
    // ASCII bytes take a short path with the same outcome: among them only
    // \t \n \r and the space are white space, and the other controls
    // (C0 and DEL, category Cc) are dropped; no ASCII character is CJK.
    thread_local std::string out;  // each step's result, swapped with text
    if (clean_text_ || chinese_) {
      out.clear();
      out.reserve(text.size() + text.size() / 8);
      for (size_t i = 0; i < text.size();) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte < 0x80) {
          ++i;
          if (clean_text_) {
            if (byte == ' ' || byte == '\t' || byte == '\n' || byte == '\r') {
              out.push_back(' ');
              continue;
            }
            if (byte < 0x20 || byte == 0x7F) continue;
          }
          out.push_back(static_cast<char>(byte));
          continue;
        }
        const size_t b = i;
        const char32_t c = NextCodePoint(text, i);
        if (clean_text_) {
          if (c == 0xFFFD || IsBertControl(c)) continue;
          if (unicode::IsWhiteSpace(c)) {
            out.push_back(' ');
            continue;
          }
        }
        if (chinese_ && IsChineseChar(c)) {
          out.push_back(' ');
          out.append(text, b, i - b);
          out.push_back(' ');
        } else {
          out.append(text, b, i - b);
        }
      }
      text.swap(out);
    }
    if (strip_accents_ && !IsAscii(text)) {
      text = Filter(unicode::Normalize(text, unicode::Form::kNfd),
                    [](char32_t c) { return !unicode::IsNonspacingMarkUnicode8(c); });
    }
    if (lowercase_) {
      out.clear();
      out.reserve(text.size());
      for (size_t i = 0; i < text.size();) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte < 0x80) {
          out.push_back(static_cast<char>(byte >= 'A' && byte <= 'Z' ? byte + 32 : byte));
          ++i;
        } else {
          unicode::AppendLowercase(out, NextCodePoint(text, i));
        }
      }
      text.swap(out);
    }
  }

 private:
  bool clean_text_, chinese_, strip_accents_, lowercase_;
};

NormalizerPtr MakeBert(const json& spec, const std::string& where) {
  const bool lowercase = RequiredBool(spec, "lowercase", where);
  // strip_accents null (or absent) follows lowercase, as the crate and
  // BertTokenizer do.
  const bool strip_accents = OptionalBool(spec, "strip_accents", where).value_or(lowercase);
  return std::make_unique<BertNormalizer>(RequiredBool(spec, "clean_text", where),
                                          RequiredBool(spec, "handle_chinese_chars", where),
                                          strip_accents, lowercase);
}

// ---- Unicode forms, case, marks, white space --------------------------------

class FormNormalizer final : public Normalizer {
 public:
  explicit FormNormalizer(unicode::Form form) : form_(form) {}
  void Normalize(std::string& text) const override { text = unicode::Normalize(text, form_); }
  void NormalizeAligned(AlignedText& t) const override { AlignForm(t, form_); }

 private:
  unicode::Form form_;
};

template <unicode::Form kForm>
NormalizerPtr MakeForm(const json&, const std::string&) {
  return std::make_unique<FormNormalizer>(kForm);
}

// utils.rs Lowercase: char::to_lowercase on each code point, no context.
class Lowercase final : public Normalizer {
 public:
  void NormalizeAligned(AlignedText& t) const override { AlignLowercase(t); }
  void Normalize(std::string& text) const override {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) unicode::AppendLowercase(out, NextCodePoint(text, i));
    text.swap(out);
  }
};

NormalizerPtr MakeLowercase(const json&, const std::string&) {
  return std::make_unique<Lowercase>();
}

// strip.rs StripAccents: drops every code point that
// unicode_normalization's is_combining_mark holds for, i.e. General_Category
// M (Mn, Mc, Me), not only Mn as BertNormalizer does. No decomposition first.
class StripAccents final : public Normalizer {
 public:
  void NormalizeAligned(AlignedText& t) const override { AlignStripAccents(t); }
  void Normalize(std::string& text) const override {
    if (IsAscii(text)) return;
    text = Filter(text, [](char32_t c) { return !unicode::IsMarkUnicode9(c); });
  }
};

NormalizerPtr MakeStripAccents(const json&, const std::string&) {
  return std::make_unique<StripAccents>();
}

// strip.rs Strip: white space (char::is_whitespace, White_Space) off either end.
class Strip final : public Normalizer {
 public:
  Strip(bool left, bool right) : left_(left), right_(right) {}
  void NormalizeAligned(AlignedText& t) const override { AlignStrip(t, left_, right_); }
  void Normalize(std::string& text) const override {
    size_t begin = 0, end = text.size();
    if (left_) {
      while (begin < end) {
        size_t i = begin;
        if (!unicode::IsWhiteSpace(NextCodePoint(text, i))) break;
        begin = i;
      }
    }
    if (right_) {
      while (end > begin) {
        size_t b = end - 1;
        while (b > begin && (static_cast<unsigned char>(text[b]) & 0xC0) == 0x80) --b;
        size_t i = b;
        if (!unicode::IsWhiteSpace(NextCodePoint(text, i))) break;
        end = b;
      }
    }
    text = text.substr(begin, end - begin);
  }

 private:
  bool left_, right_;
};

NormalizerPtr MakeStrip(const json& spec, const std::string& where) {
  return std::make_unique<Strip>(RequiredBool(spec, "strip_left", where),
                                 RequiredBool(spec, "strip_right", where));
}

// ---- Replace, Prepend -------------------------------------------------------

// replace.rs: every match of the pattern ({"String": s} matches s literally,
// {"Regex": r} the regular expression) becomes content, taken literally.
class Replace final : public Normalizer {
 public:
  Replace(std::string literal, std::unique_ptr<Regex> regex, std::string content)
      : literal_(std::move(literal)), regex_(std::move(regex)), content_(std::move(content)) {}

  void NormalizeAligned(AlignedText& t) const override {
    AlignReplace(t, literal_, regex_.get(), content_);
  }

  void Normalize(std::string& text) const override {
    std::string out;
    size_t prev = 0;
    if (regex_) {
      for (const auto& [b, e] : regex_->FindAll(text)) {
        out.append(text, prev, b - prev);
        out += content_;
        prev = e;
      }
    } else {
      for (size_t at = text.find(literal_); at != std::string::npos;
           at = text.find(literal_, prev)) {
        out.append(text, prev, at - prev);
        out += content_;
        prev = at + literal_.size();
      }
    }
    if (prev == 0 && out.empty()) return;  // no match
    out.append(text, prev, std::string::npos);
    text.swap(out);
  }

 private:
  std::string literal_;           // a non-empty String pattern
  std::unique_ptr<Regex> regex_;  // or a Regex pattern (or the empty String)
  std::string content_;
};

// A {"String": s} or {"Regex": r} pattern object: (literal, regex), one set.
std::pair<std::string, std::unique_ptr<Regex>> ReadPattern(const json& spec,
                                                           const std::string& where) {
  const json& p = Required(spec, "pattern", where);
  const std::string field = where + ".pattern";
  if (!p.is_object() || p.size() != 1 || !p.begin().value().is_string())
    throw Error(field + R"(: expected {"String": "..."} or {"Regex": "..."}, got )" + p.dump());
  const std::string& kind = p.begin().key();
  const std::string value = p.begin().value().get<std::string>();
  if (kind == "String") {
    // The crate compiles the escaped string; an empty one matches the empty
    // string everywhere, which only the regex path reproduces.
    if (value.empty()) return {"", std::make_unique<Regex>("", field + ".String")};
    return {value, nullptr};
  }
  if (kind == "Regex") return {"", std::make_unique<Regex>(value, field + ".Regex")};
  throw Error(field + ": \"" + kind + R"(" is not a pattern kind (expected "String" or "Regex"))");
}

NormalizerPtr MakeReplace(const json& spec, const std::string& where) {
  auto [literal, regex] = ReadPattern(spec, where);
  return std::make_unique<Replace>(std::move(literal), std::move(regex),
                                   RequiredString(spec, "content", where));
}

// prepend.rs: prefix added to a non-empty text.
class Prepend final : public Normalizer {
 public:
  explicit Prepend(std::string prefix) : prefix_(std::move(prefix)) {}
  void NormalizeAligned(AlignedText& t) const override { AlignPrepend(t, prefix_); }
  void Normalize(std::string& text) const override {
    if (!text.empty()) text.insert(0, prefix_);
  }

 private:
  std::string prefix_;
};

NormalizerPtr MakePrepend(const json& spec, const std::string& where) {
  return std::make_unique<Prepend>(RequiredString(spec, "prepend", where));
}

// unicode.rs Nmt: SentencePiece's nmt rules without the charsmap: ASCII
// controls dropped, some spaces and format characters made ' '.
class Nmt final : public Normalizer {
 public:
  void NormalizeAligned(AlignedText& t) const override { AlignNmt(t); }
  void Normalize(std::string& text) const override {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
      const size_t b = i;
      const char32_t c = NextCodePoint(text, i);
      if ((c >= 0x01 && c <= 0x08) || c == 0x0B || (c >= 0x0E && c <= 0x1F) || c == 0x7F ||
          c == 0x8F || c == 0x9F)
        continue;
      if (c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D || c == 0x1680 ||
          (c >= 0x200B && c <= 0x200F) || c == 0x2028 || c == 0x2029 || c == 0x2581 ||
          c == 0xFEFF || c == 0xFFFD) {
        out.push_back(' ');
      } else {
        out.append(text, b, i - b);
      }
    }
    text.swap(out);
  }
};

NormalizerPtr MakeNmt(const json&, const std::string&) { return std::make_unique<Nmt>(); }

// normalizers/byte_level.rs: every byte as GPT-2's byte-level character.
class ByteLevelNormalizer final : public Normalizer {
 public:
  void NormalizeAligned(AlignedText& t) const override { AlignByteLevel(t); }
  void Normalize(std::string& text) const override {
    std::string out;
    out.reserve(text.size() * 2);
    for (const char b : text) AppendUtf8Char(out, ByteToUnicode(static_cast<unsigned char>(b)));
    text.swap(out);
  }

 private:
  static void AppendUtf8Char(std::string& out, char32_t c) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else {  // the table's values are all below U+0800
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
};

NormalizerPtr MakeByteLevel(const json&, const std::string&) {
  return std::make_unique<ByteLevelNormalizer>();
}

// ---- Precompiled (SentencePiece's charsmap) ---------------------------------

class Precompiled final : public Normalizer {
 public:
  explicit Precompiled(PrecompiledCharsmap map) : map_(std::move(map)) {}
  void Normalize(std::string& text) const override { text = map_.Apply(text); }
  void NormalizeAligned(AlignedText& t) const override { map_.ApplyAligned(t); }

 private:
  PrecompiledCharsmap map_;
};

// Standard base64 (RFC 4648 alphabet, '=' padding), as the crate decodes it.
std::string DecodeBase64(const std::string& in, const std::string& where) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (in.size() % 4 != 0)
    throw Error(where + ": not base64 (its length, " + std::to_string(in.size()) +
                ", is not a multiple of 4)");
  std::string out;
  out.reserve(in.size() / 4 * 3);
  for (size_t i = 0; i < in.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = in[i + k];
      if (c == '=' && i + 4 == in.size() && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      v[k] = pad > 0 ? -1 : value(c);
      if (v[k] < 0) throw Error(where + ": not base64 (character " + std::to_string(i + k) + ")");
    }
    const uint32_t n =
        (uint32_t(v[0]) << 18) | (uint32_t(v[1]) << 12) | (uint32_t(v[2]) << 6) | uint32_t(v[3]);
    out.push_back(static_cast<char>(n >> 16));
    if (pad < 2) out.push_back(static_cast<char>((n >> 8) & 0xFF));
    if (pad < 1) out.push_back(static_cast<char>(n & 0xFF));
  }
  return out;
}

NormalizerPtr MakePrecompiled(const json& spec, const std::string& where) {
  const std::string field = where + ".precompiled_charsmap";
  const std::string bytes =
      DecodeBase64(RequiredString(spec, "precompiled_charsmap", where), field);
  return std::make_unique<Precompiled>(PrecompiledCharsmap(bytes, field));
}

// ---- Sequence and the registry ----------------------------------------------

class Sequence final : public Normalizer {
 public:
  explicit Sequence(std::vector<NormalizerPtr> steps) : steps_(std::move(steps)) {}
  void Normalize(std::string& text) const override {
    for (const auto& step : steps_) step->Normalize(text);
  }
  void NormalizeAligned(AlignedText& t) const override {
    for (const auto& step : steps_) step->NormalizeAligned(t);
  }

 private:
  std::vector<NormalizerPtr> steps_;
};

NormalizerPtr MakeSequence(const json& spec, const std::string& where) {
  return std::make_unique<Sequence>(
      BuildSteps(spec, "normalizers", where, "a normalizer", MakeNormalizer));
}

using Builder = NormalizerPtr (*)(const json&, const std::string&);

// Every normalizer kind tokenizer.json may name, by its "type".
constexpr std::array<std::pair<const char*, Builder>, 14> kNormalizers = {{
    {"BertNormalizer", MakeBert},
    {"NFC", MakeForm<unicode::Form::kNfc>},
    {"NFD", MakeForm<unicode::Form::kNfd>},
    {"NFKC", MakeForm<unicode::Form::kNfkc>},
    {"NFKD", MakeForm<unicode::Form::kNfkd>},
    {"Lowercase", MakeLowercase},
    {"StripAccents", MakeStripAccents},
    {"Strip", MakeStrip},
    {"Replace", MakeReplace},
    {"Prepend", MakePrepend},
    {"Precompiled", MakePrecompiled},
    {"Sequence", MakeSequence},
    {"Nmt", MakeNmt},
    {"ByteLevel", MakeByteLevel},
}};

}  // namespace

std::unique_ptr<Normalizer> MakeNormalizer(const nlohmann::json& spec, const std::string& where) {
  if (spec.is_null()) return nullptr;
  return FindKind(kNormalizers, TypeOf(spec, where), where, "a normalizer")(spec, where);
}

}  // namespace phasor::tokenizers

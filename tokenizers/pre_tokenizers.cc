// The pre-tokenizers of tokenizer.json, each the Hugging Face tokenizers
// (Rust crate) pre-tokenizer of the same "type": same fields and defaults (a
// field the crate requires is required here too), same pieces.
//
// Every split follows the crate's NormalizedString::split: a pattern cuts a
// piece into segments, each a match or not (a character predicate makes each
// matching character its own match; a regex its matches), and the behavior
// decides what becomes of the matches: Removed drops them, Isolated keeps
// them as pieces, MergedWithPrevious/MergedWithNext glue each to the piece
// before/after, Contiguous merges neighbouring segments of the same kind.
// Empty pieces are dropped.
#include <unicode/uchar.h>

#include <algorithm>
#include <array>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "engine/error.h"
#include "tokenizers/fields.h"
#include "tokenizers/kinds.h"
#include "tokenizers/pre_tokenizer.h"
#include "tokenizers/regex.h"
#include "tokenizers/unicode.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

using nlohmann::json;
using PreTokenizerPtr = std::unique_ptr<PreTokenizer>;

// ---- Splitting --------------------------------------------------------------

struct Segment {
  size_t begin, end;
  bool match;
};

enum class Behavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

Behavior ReadBehavior(const json& v, const std::string& field) {
  static const std::array<std::pair<const char*, Behavior>, 5> kNames = {{
      {"Removed", Behavior::kRemoved},
      {"Isolated", Behavior::kIsolated},
      {"MergedWithPrevious", Behavior::kMergedWithPrevious},
      {"MergedWithNext", Behavior::kMergedWithNext},
      {"Contiguous", Behavior::kContiguous},
  }};
  if (v.is_string()) {
    for (const auto& [name, behavior] : kNames)
      if (v.get<std::string>() == name) return behavior;
  }
  throw Error(field + ": " + v.dump() +
              " is not a split behavior (expected \"Removed\", \"Isolated\", "
              "\"MergedWithPrevious\", \"MergedWithNext\" or \"Contiguous\")");
}

// The [begin, end) spans the behavior keeps, as NormalizedString::split.
void ApplyBehavior(const std::vector<Segment>& segments, Behavior behavior,
                   std::vector<std::pair<size_t, size_t>>& spans) {
  spans.clear();
  bool previous_match = false;
  switch (behavior) {
    case Behavior::kIsolated:
      for (const Segment& s : segments) spans.emplace_back(s.begin, s.end);
      break;
    case Behavior::kRemoved:
      for (const Segment& s : segments)
        if (!s.match) spans.emplace_back(s.begin, s.end);
      break;
    case Behavior::kContiguous:
      for (const Segment& s : segments) {
        if (s.match == previous_match && !spans.empty()) {
          spans.back().second = s.end;
        } else {
          spans.emplace_back(s.begin, s.end);
        }
        previous_match = s.match;
      }
      break;
    case Behavior::kMergedWithPrevious:
      for (const Segment& s : segments) {
        if (s.match && !previous_match && !spans.empty()) {
          spans.back().second = s.end;
        } else {
          spans.emplace_back(s.begin, s.end);
        }
        previous_match = s.match;
      }
      break;
    case Behavior::kMergedWithNext:
      for (size_t k = segments.size(); k-- > 0;) {
        const Segment& s = segments[k];
        if (s.match && !previous_match && !spans.empty()) {
          spans.back().first = s.begin;
        } else {
          spans.emplace_back(s.begin, s.end);
        }
        previous_match = s.match;
      }
      std::reverse(spans.begin(), spans.end());
      break;
  }
}

// Replaces each piece by its parts, views of its bytes (nothing is copied).
// segments_of(text, segments) fills the segments of one piece's text; the
// first part keeps at_text_start when it begins where its piece began.
template <class SegmentsOf>
void SplitPieces(Pieces& pieces, Behavior behavior, SegmentsOf segments_of) {
  // Buffers of this thread, reused from call to call (no call nests in another).
  thread_local std::vector<Segment> segments;
  thread_local std::vector<std::pair<size_t, size_t>> spans;
  std::vector<Pieces::Ref>& out = pieces.StartCut();
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Pieces::Ref piece = pieces.ref(i);
    segments.clear();
    segments_of(pieces.text(i), segments);
    ApplyBehavior(segments, behavior, spans);
    for (const auto& [b, e] : spans) {
      if (b == e) continue;
      out.push_back(Pieces::Ref{piece.begin + b, piece.begin + e, piece.at_text_start && b == 0});
    }
  }
  pieces.CommitCut();
}

// Segments where each code point for which is_match holds is a match of its
// own, as the crate's Pattern for Fn(char) -> bool.
template <class IsMatch>
void CharSegments(std::string_view text, IsMatch is_match, std::vector<Segment>& segments) {
  size_t last = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t b = i;
    const char32_t c = NextCodePoint(text, i);
    if (is_match(c)) {
      if (last < b) segments.push_back({last, b, false});
      segments.push_back({b, i, true});
      last = i;
    }
  }
  if (last < text.size()) segments.push_back({last, text.size(), false});
}

// Segments of a regex's matches and the gaps between them (pattern.rs).
void RegexSegments(const Regex& regex, std::string_view text, std::vector<Segment>& segments) {
  size_t prev = 0;
  thread_local std::vector<std::pair<size_t, size_t>> matches;
  regex.FindAll(text, matches);
  for (const auto& [b, e] : matches) {
    if (prev != b) segments.push_back({prev, b, false});
    segments.push_back({b, e, true});
    prev = e;
  }
  if (prev != text.size()) segments.push_back({prev, text.size(), false});
}

// Rust's char::is_whitespace: the White_Space property.
bool IsWhiteSpace(char32_t c) { return unicode::IsWhiteSpace(c); }

// bert.rs / punctuation.rs is_punc: ASCII punctuation or General_Category P.
bool IsBertPunctuation(char32_t c) {
  if (c < 0x80)
    return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
           (c >= 0x7B && c <= 0x7E);
  return unicode::IsPunctuationUnicode8(c);
}

// ---- The kinds --------------------------------------------------------------

// bert.rs: split on white space (removed), then isolate each punctuation
// character. One pass does both.
class BertPreTokenizer final : public PreTokenizer {
 public:
  void Split(Pieces& pieces) const override {
    SplitPieces(pieces, Behavior::kIsolated, [](std::string_view text, auto& segments) {
      // Spaces become matches that are then dropped: mark them with an
      // empty span, which SplitPieces skips, and cut around them.
      size_t last = 0;
      for (size_t i = 0; i < text.size();) {
        const size_t b = i;
        const char32_t c = NextCodePoint(text, i);
        const bool space = IsWhiteSpace(c);
        if (space || IsBertPunctuation(c)) {
          if (last < b) segments.push_back({last, b, false});
          if (!space) segments.push_back({b, i, true});
          last = i;
        }
      }
      if (last < text.size()) segments.push_back({last, text.size(), false});
    });
  }
};

PreTokenizerPtr MakeBert(const json&, const std::string&) {
  return std::make_unique<BertPreTokenizer>();
}

// whitespace.rs WhitespaceSplit: white space removed.
class WhitespaceSplit final : public PreTokenizer {
 public:
  void Split(Pieces& pieces) const override {
    SplitPieces(pieces, Behavior::kRemoved, [](std::string_view text, auto& segments) {
      CharSegments(text, IsWhiteSpace, segments);
    });
  }
};

PreTokenizerPtr MakeWhitespaceSplit(const json&, const std::string&) {
  return std::make_unique<WhitespaceSplit>();
}

// whitespace.rs Whitespace: the pieces \w+|[^\w\s]+ matches, with the regex
// crate's Unicode \w (Alphabetic, M, Nd, Pc, Join_Control, Unicode 16.0) and
// \s (White_Space). Written out over code point classes rather than run by
// PCRE2, whose \w differs (regex.h).
class Whitespace final : public PreTokenizer {
 public:
  void Split(Pieces& pieces) const override {
    SplitPieces(pieces, Behavior::kRemoved, [](std::string_view text, auto& segments) {
      // 0: space (a gap), 1: word, 2: other; runs of one class are pieces.
      auto class_of = [](char32_t c) {
        if (c < 0x80) {
          if (c == ' ' || (c >= 0x09 && c <= 0x0D)) return 0;
          return (c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'))
                     ? 1
                     : 2;
        }
        const auto cp = static_cast<UChar32>(c);
        if (u_hasBinaryProperty(cp, UCHAR_WHITE_SPACE)) return 0;
        return unicode::IsRegexCrateWord(c) ? 1 : 2;
      };
      size_t run_begin = 0;
      int run_class = -1;
      for (size_t i = 0; i < text.size();) {
        const size_t b = i;
        const int k = class_of(NextCodePoint(text, i));
        if (k != run_class) {
          if (run_class >= 0) segments.push_back({run_begin, b, run_class == 0});
          run_begin = b;
          run_class = k;
        }
      }
      if (run_class >= 0) segments.push_back({run_begin, text.size(), run_class == 0});
    });
  }
};

PreTokenizerPtr MakeWhitespace(const json&, const std::string&) {
  return std::make_unique<Whitespace>();
}

// punctuation.rs: each punctuation character, by behavior (Isolated by default).
class Punctuation final : public PreTokenizer {
 public:
  explicit Punctuation(Behavior behavior) : behavior_(behavior) {}
  void Split(Pieces& pieces) const override {
    SplitPieces(pieces, behavior_, [](std::string_view text, auto& segments) {
      CharSegments(text, IsBertPunctuation, segments);
    });
  }

 private:
  Behavior behavior_;
};

PreTokenizerPtr MakePunctuation(const json& spec, const std::string& where) {
  auto it = spec.find("behavior");
  if (it == spec.end()) return std::make_unique<Punctuation>(Behavior::kIsolated);
  return std::make_unique<Punctuation>(ReadBehavior(*it, where + ".behavior"));
}

// digits.rs: numbers (char::is_numeric, General_Category N) apart from the
// rest, each digit alone (individual_digits) or in runs.
class Digits final : public PreTokenizer {
 public:
  explicit Digits(bool individual) : individual_(individual) {}
  void Split(Pieces& pieces) const override {
    SplitPieces(pieces, individual_ ? Behavior::kIsolated : Behavior::kContiguous,
                [](std::string_view text, auto& segments) {
                  CharSegments(text, unicode::IsNumericRust, segments);
                });
  }

 private:
  bool individual_;
};

PreTokenizerPtr MakeDigits(const json& spec, const std::string& where) {
  return std::make_unique<Digits>(RequiredBool(spec, "individual_digits", where));
}

// split.rs: the matches of a String (literal) or Regex pattern, by behavior;
// invert makes the gaps the matches.
class SplitPreTokenizer final : public PreTokenizer {
 public:
  SplitPreTokenizer(std::string literal, std::unique_ptr<Regex> regex, Behavior behavior,
                    bool invert)
      : literal_(std::move(literal)),
        regex_(std::move(regex)),
        behavior_(behavior),
        invert_(invert) {}

  void Split(Pieces& pieces) const override {
    SplitPieces(pieces, behavior_, [this](std::string_view text, std::vector<Segment>& segments) {
      if (regex_) {
        RegexSegments(*regex_, text, segments);
      } else {
        size_t prev = 0;
        for (size_t at = text.find(literal_); at != std::string_view::npos;
             at = text.find(literal_, prev)) {
          if (prev != at) segments.push_back({prev, at, false});
          segments.push_back({at, at + literal_.size(), true});
          prev = at + literal_.size();
        }
        if (prev != text.size()) segments.push_back({prev, text.size(), false});
      }
      if (invert_)
        for (Segment& s : segments) s.match = !s.match;
    });
  }

 private:
  std::string literal_;           // a non-empty String pattern
  std::unique_ptr<Regex> regex_;  // or a Regex pattern (or the empty String)
  Behavior behavior_;
  bool invert_;
};

PreTokenizerPtr MakeSplit(const json& spec, const std::string& where) {
  const json& p = Required(spec, "pattern", where);
  const std::string field = where + ".pattern";
  if (!p.is_object() || p.size() != 1 || !p.begin().value().is_string())
    throw Error(field + R"(: expected {"String": "..."} or {"Regex": "..."}, got )" + p.dump());
  const std::string& kind = p.begin().key();
  const std::string value = p.begin().value().get<std::string>();
  const Behavior behavior = ReadBehavior(Required(spec, "behavior", where), where + ".behavior");
  const bool invert = RequiredBool(spec, "invert", where);
  if (kind == "String") {
    // The crate compiles the escaped string; only the regex path reproduces
    // what the empty one matches (the empty string at every character).
    if (value.empty())
      return std::make_unique<SplitPreTokenizer>("", std::make_unique<Regex>("", field + ".String"),
                                                 behavior, invert);
    return std::make_unique<SplitPreTokenizer>(value, nullptr, behavior, invert);
  }
  if (kind == "Regex")
    return std::make_unique<SplitPreTokenizer>("", std::make_unique<Regex>(value, field + ".Regex"),
                                               behavior, invert);
  throw Error(field + ": \"" + kind + R"(" is not a pattern kind (expected "String" or "Regex"))");
}

// GPT-2's bytes_to_unicode: the printable bytes stand for themselves, the
// others (controls, space, DEL, U+00A0, U+00AD...) for 256, 257, ... in order.
constexpr std::array<char32_t, 256> MakeByteTable() {
  std::array<char32_t, 256> table{};
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) {
    const bool printable =
        (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    table[b] = printable ? char32_t(b) : next++;
  }
  return table;
}
constexpr std::array<char32_t, 256> kByteToUnicode = MakeByteTable();

// Each byte's character in UTF-8: one byte or two (every one is below U+0800).
struct MappedByte {
  char bytes[2];
  unsigned char size;
};
constexpr std::array<MappedByte, 256> MakeMappedBytes() {
  std::array<MappedByte, 256> table{};
  for (int b = 0; b < 256; ++b) {
    const char32_t c = kByteToUnicode[b];
    if (c < 0x80) {
      table[b] = MappedByte{{static_cast<char>(c), 0}, 1};
    } else {
      table[b] =
          MappedByte{{static_cast<char>(0xC0 | (c >> 6)), static_cast<char>(0x80 | (c & 0x3F))}, 2};
    }
  }
  return table;
}
constexpr std::array<MappedByte, 256> kMappedBytes = MakeMappedBytes();

// GPT-2's pre-tokenization pattern, as byte_level.rs writes it.
constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// byte_level.rs: a space before a piece that lacks one (add_prefix_space),
// GPT-2's pattern (use_regex), then every byte as its byte-level character.
class ByteLevel final : public PreTokenizer {
 public:
  ByteLevel(bool add_prefix_space, bool use_regex)
      : add_prefix_space_(add_prefix_space),
        regex_(use_regex ? std::make_unique<Regex>(kGpt2Pattern, "ByteLevel") : nullptr) {}

  void Split(Pieces& pieces) const override {
    if (add_prefix_space_) {
      size_t more = 0;
      for (size_t i = 0; i < pieces.size(); ++i) more += pieces.text(i).size() + 1;
      pieces.Reserve(more);
      for (size_t i = 0; i < pieces.size(); ++i) {
        const std::string_view text = pieces.text(i);
        if (text.empty() || text[0] == ' ') continue;
        const size_t begin = pieces.Mark();
        // The crate's prepend: the space takes the first character's span.
        const Span* align = pieces.aligned() ? pieces.align(i) : nullptr;
        pieces.AppendByte(' ', align ? align[0] : Span{});
        pieces.AppendCopy(text, align);
        pieces.EndRewrite(i, begin);
      }
    }
    if (regex_) {
      SplitPieces(pieces, Behavior::kIsolated, [this](std::string_view text, auto& segments) {
        RegexSegments(*regex_, text, segments);
      });
    }
    // Every byte as its character: one or two bytes of UTF-8 (below U+0800).
    size_t more = 0;
    for (size_t i = 0; i < pieces.size(); ++i) more += 2 * pieces.text(i).size();
    pieces.Reserve(more);
    for (size_t i = 0; i < pieces.size(); ++i) {
      const std::string_view text = pieces.text(i);
      const Span* align = pieces.aligned() ? pieces.align(i) : nullptr;
      const size_t begin = pieces.Mark();
      size_t n = 0;
      for (const char c : text) n += kMappedBytes[static_cast<unsigned char>(c)].size;
      char* out = pieces.Grow(n);
      for (size_t j = 0; j < text.size(); ++j) {
        const MappedByte& m = kMappedBytes[static_cast<unsigned char>(text[j])];
        out[0] = m.bytes[0];
        if (m.size == 2) out[1] = m.bytes[1];
        out += m.size;
        // Each byte's character takes the span of the character it is part of.
        if (align) pieces.AppendSpans(m.size, align[j]);
      }
      pieces.EndRewrite(i, begin);
    }
    pieces.DropEmpty();
  }

 private:
  bool add_prefix_space_;
  std::unique_ptr<Regex> regex_;
};

PreTokenizerPtr MakeByteLevel(const json& spec, const std::string& where) {
  const bool add_prefix_space = RequiredBool(spec, "add_prefix_space", where);
  RequiredBool(spec, "trim_offsets", where);  // offsets only: no effect on ids
  return std::make_unique<ByteLevel>(add_prefix_space, BoolField(spec, "use_regex", where, true));
}

enum class PrependScheme { kAlways, kFirst, kNever };

// metaspace.rs: spaces become the replacement character, which is prepended
// (always; first: only to the piece at the start of the text; never) to a
// piece that does not begin with it, then (split) each piece is cut before
// every replacement character.
class Metaspace final : public PreTokenizer {
 public:
  Metaspace(std::string replacement, PrependScheme scheme, bool split)
      : replacement_(std::move(replacement)), scheme_(scheme), split_(split) {}

  void Split(Pieces& pieces) const override {
    const size_t r = replacement_.size();
    size_t more = 0;
    for (size_t i = 0; i < pieces.size(); ++i) more += (pieces.text(i).size() + 1) * r;
    pieces.Reserve(more);
    for (size_t i = 0; i < pieces.size(); ++i) {
      const std::string_view t = pieces.text(i);
      if (t.empty()) continue;
      const bool spaces = t.find(' ') != std::string_view::npos;
      const bool starts = t[0] == ' ' || t.substr(0, r) == replacement_;
      const bool prepend =
          !starts && (scheme_ == PrependScheme::kAlways ||
                      (scheme_ == PrependScheme::kFirst && pieces.ref(i).at_text_start));
      if (!spaces && !prepend) continue;
      const Span* align = pieces.aligned() ? pieces.align(i) : nullptr;
      const size_t begin = pieces.Mark();
      // A prepended replacement takes the first character's span, one that
      // replaces a space the space's.
      if (prepend) pieces.Append(replacement_, align ? align[0] : Span{});
      for (size_t j = 0; j < t.size(); ++j) {
        if (t[j] == ' ') {
          pieces.Append(replacement_, align ? align[j] : Span{});
        } else {
          pieces.AppendByte(t[j], align ? align[j] : Span{});
        }
      }
      pieces.EndRewrite(i, begin);
    }
    if (!split_) {
      pieces.DropEmpty();
      return;
    }
    SplitPieces(pieces, Behavior::kMergedWithNext,
                [this](std::string_view text, std::vector<Segment>& segments) {
                  size_t prev = 0;
                  for (size_t at = text.find(replacement_); at != std::string_view::npos;
                       at = text.find(replacement_, prev)) {
                    if (prev != at) segments.push_back({prev, at, false});
                    segments.push_back({at, at + replacement_.size(), true});
                    prev = at + replacement_.size();
                  }
                  if (prev != text.size()) segments.push_back({prev, text.size(), false});
                });
  }

 private:
  std::string replacement_;  // one character, UTF-8
  PrependScheme scheme_;
  bool split_;
};

PreTokenizerPtr MakeMetaspace(const json& spec, const std::string& where) {
  const json& r = Required(spec, "replacement", where);
  const bool one_char = r.is_string() && !r.get<std::string>().empty() &&
                        SequenceLength(static_cast<unsigned char>(r.get<std::string>()[0])) ==
                            r.get<std::string>().size();
  if (!one_char)
    throw Error(where + ".replacement: expected a string of one character, got " + r.dump());
  PrependScheme scheme = PrependScheme::kAlways;
  if (auto it = spec.find("prepend_scheme"); it != spec.end()) {
    const std::string s = it->is_string() ? it->get<std::string>() : "";
    if (s == "always") {
      scheme = PrependScheme::kAlways;
    } else if (s == "first") {
      scheme = PrependScheme::kFirst;
    } else if (s == "never") {
      scheme = PrependScheme::kNever;
    } else {
      throw Error(where + ".prepend_scheme: " + it->dump() +
                  R"( is not a prepend scheme (expected "always", "first" or "never"))");
    }
  }
  // Files written before prepend_scheme existed say add_prefix_space; false
  // means "never", and contradicting an explicit scheme is refused, as the
  // crate refuses it.
  auto legacy = spec.find("add_prefix_space");
  if (legacy != spec.end() && !legacy->is_null()) {
    if (!legacy->is_boolean())
      throw Error(where + ".add_prefix_space: expected true or false, got " + legacy->dump());
    if (!legacy->get<bool>()) {
      if (scheme != PrependScheme::kNever && spec.contains("prepend_scheme"))
        throw Error(where + ".add_prefix_space: false does not match prepend_scheme " +
                    spec["prepend_scheme"].dump());
      scheme = PrependScheme::kNever;
    }
  }
  return std::make_unique<Metaspace>(r.get<std::string>(), scheme,
                                     BoolField(spec, "split", where, true));
}

class Sequence final : public PreTokenizer {
 public:
  explicit Sequence(std::vector<PreTokenizerPtr> steps) : steps_(std::move(steps)) {}
  void Split(Pieces& pieces) const override {
    for (const auto& step : steps_) step->Split(pieces);
  }

 private:
  std::vector<PreTokenizerPtr> steps_;
};

PreTokenizerPtr MakeSequence(const json& spec, const std::string& where) {
  return std::make_unique<Sequence>(
      BuildSteps(spec, "pretokenizers", where, "a pre-tokenizer", MakePreTokenizer));
}

using Builder = PreTokenizerPtr (*)(const json&, const std::string&);

// Every pre-tokenizer kind tokenizer.json may name, by its "type".
constexpr std::array<std::pair<const char*, Builder>, 9> kPreTokenizers = {{
    {"BertPreTokenizer", MakeBert},
    {"ByteLevel", MakeByteLevel},
    {"Metaspace", MakeMetaspace},
    {"Whitespace", MakeWhitespace},
    {"WhitespaceSplit", MakeWhitespaceSplit},
    {"Punctuation", MakePunctuation},
    {"Digits", MakeDigits},
    {"Split", MakeSplit},
    {"Sequence", MakeSequence},
}};

}  // namespace

std::unique_ptr<PreTokenizer> MakePreTokenizer(const nlohmann::json& spec,
                                               const std::string& where) {
  if (spec.is_null()) return nullptr;
  return FindKind(kPreTokenizers, TypeOf(spec, where), where, "a pre-tokenizer")(spec, where);
}

char32_t ByteToUnicode(unsigned char b) { return kByteToUnicode[b]; }

}  // namespace phasor::tokenizers

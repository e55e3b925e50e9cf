#include "tokenizers/regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/error.h"
#include "tokenizers/unicode.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

// What Oniguruma means by \s and \h (regex.h), as PCRE2 class contents.
constexpr const char* kOnigSpace = "\\t-\\r\\x{85}\\p{Z}";
constexpr const char* kOnigHex = "0-9a-fA-F";

// ranges as PCRE2 class contents: \x{41}-\x{5A}...
std::string ClassRanges(const std::vector<unicode::CodePointRange>& ranges) {
  std::string out;
  char buf[40];
  for (const auto& r : ranges) {
    std::snprintf(buf, sizeof(buf), "\\x{%X}-\\x{%X}", static_cast<unsigned>(r.first),
                  static_cast<unsigned>(r.last));
    out += buf;
  }
  return out;
}

// \p{name} (or \P{name} when negated) of a General_Category as Unicode 16.0
// has it (Oniguruma's), in PCRE2's Unicode 14.0 terms plus the code points
// 16.0 moved in or out. Inside a class only the code points moved in can be
// added (a class cannot take any out): none of the category classes
// tokenizers' patterns use (L, N, P, S, Z and their parts) lost one.
std::string Category16(const std::string& name, bool negated, bool in_class) {
  const std::string plain = std::string(negated ? "\\P{" : "\\p{") + name + "}";
  std::vector<unicode::CodePointRange> add, remove;
  if (!unicode::RegexCategoryChange(name, add, remove) || (add.empty() && remove.empty()))
    return plain;
  // Negated, the code points moved in go out and those moved out come in.
  if (negated) std::swap(add, remove);
  const std::string set = plain + ClassRanges(add);
  if (in_class) return set;
  if (remove.empty()) return "[" + set + "]";
  return "(?:(?![" + ClassRanges(remove) + "])[" + set + "])";
}

// Oniguruma's \w (regex.h) in Unicode 16.0, and \b and \B over it.
struct OnigWord {
  std::string set, boundary, non_boundary;
};
const OnigWord& Word() {
  static const OnigWord word = [] {
    OnigWord w;
    w.set = Category16("Alphabetic", false, true) + Category16("M", false, true) +
            Category16("Nd", false, true) + Category16("Pc", false, true) +
            "\\x{B2}\\x{B3}\\x{B9}\\x{BC}-\\x{BE}";
    const std::string c = "[" + w.set + "]";
    w.boundary = "(?:(?<!" + c + ")(?=" + c + ")|(?<=" + c + ")(?!" + c + "))";
    w.non_boundary = "(?:(?<!" + c + ")(?!" + c + ")|(?<=" + c + ")(?=" + c + "))";
    return w;
  }();
  return word;
}

// pattern with \s \S \w \W \h \H \b \B spelled out as Oniguruma reads them,
// and \p{..} \P{..} of General_Category as Unicode 16.0 has them.
std::string FromOniguruma(const std::string& pattern) {
  std::string out;
  out.reserve(pattern.size() + 16);
  bool in_class = false;
  bool quoted = false;  // inside \Q...\E
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (quoted) {
      out.push_back(c);
      if (c == '\\' && i + 1 < pattern.size() && pattern[i + 1] == 'E') {
        out.push_back('E');
        ++i;
        quoted = false;
      }
      continue;
    }
    if (c == '\\' && i + 1 < pattern.size()) {
      const char e = pattern[++i];
      const char* set = e == 's' || e == 'S'   ? kOnigSpace
                        : e == 'w' || e == 'W' ? Word().set.c_str()
                        : e == 'h' || e == 'H' ? kOnigHex
                                               : nullptr;
      const bool negated = e == 'S' || e == 'W' || e == 'H';
      if (set != nullptr && !in_class) {
        out += negated ? "[^" : "[";
        out += set;
        out += ']';
      } else if (set != nullptr && !negated) {
        out += set;
      } else if (!in_class && e == 'b') {
        out += Word().boundary;
      } else if (!in_class && e == 'B') {
        out += Word().non_boundary;
      } else if ((e == 'p' || e == 'P') && i + 1 < pattern.size() && pattern[i + 1] == '{' &&
                 pattern.find('}', i) != std::string::npos) {
        const size_t close = pattern.find('}', i);
        std::string name = pattern.substr(i + 2, close - i - 2);
        bool negated = e == 'P';
        if (!name.empty() && name[0] == '^') {
          negated = !negated;
          name.erase(0, 1);
        }
        out += Category16(name, negated, in_class);
        i = close;
      } else {
        if (e == 'Q') quoted = true;
        out.push_back('\\');
        out.push_back(e);
      }
      continue;
    }
    out.push_back(c);
    if (!in_class && c == '[') {
      in_class = true;
      // A ']' first in a class (after an optional '^') is a literal.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out.push_back(pattern[++i]);
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out.push_back(pattern[++i]);
    } else if (in_class && c == '[' && i + 1 < pattern.size() && pattern[i + 1] == ':') {
      // A POSIX class [:alpha:] inside a class: copy it whole.
      const size_t end = pattern.find(":]", i + 2);
      if (end != std::string::npos) {
        out.append(pattern, i + 1, end + 2 - (i + 1));
        i = end + 1;
      }
    } else if (in_class && c == ']') {
      in_class = false;
    }
  }
  return out;
}

struct MatchDataDeleter {
  void operator()(pcre2_match_data* m) const { pcre2_match_data_free(m); }
};

}  // namespace

Regex::Regex(const std::string& pattern, const std::string& where) : where_(where) {
  const std::string translated = FromOniguruma(pattern);
  int error = 0;
  PCRE2_SIZE offset = 0;
  code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                        PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
  if (code_ == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof(message));
    throw Error(where + ": the pattern \"" + pattern + "\" does not compile (" +
                reinterpret_cast<const char*>(message) +
                (translated == pattern ? " at offset " + std::to_string(offset) : std::string()) +
                ")");
  }
  // Where there is no JIT the interpreter gives the same matches, slower.
  pcre2_jit_compile(code_, PCRE2_JIT_COMPLETE);
  // The bytes a match can begin with, when PCRE2 knows a set of them and the
  // pattern cannot match the empty string: a text holding none of them has
  // no match, found without a call.
  uint32_t match_empty = 1;
  const uint8_t* bitmap = nullptr;
  if (pcre2_pattern_info(code_, PCRE2_INFO_MATCHEMPTY, &match_empty) == 0 && match_empty == 0 &&
      pcre2_pattern_info(code_, PCRE2_INFO_FIRSTBITMAP, &bitmap) == 0 && bitmap != nullptr) {
    for (int b = 0; b < 256; ++b) first_bytes_[b] = (bitmap[b / 8] >> (b % 8)) & 1;
    has_first_bytes_ = true;
  }
}

Regex::~Regex() { pcre2_code_free(code_); }

std::vector<std::pair<size_t, size_t>> Regex::FindAll(std::string_view text) const {
  std::vector<std::pair<size_t, size_t>> spans;
  FindAll(text, spans);
  return spans;
}

void Regex::FindAll(std::string_view text, std::vector<std::pair<size_t, size_t>>& spans) const {
  spans.clear();
  if (has_first_bytes_ && std::none_of(text.begin(), text.end(), [this](char c) {
        return first_bytes_[static_cast<unsigned char>(c)];
      }))
    return;
  // The thread's match data, made once: one pair, the whole match's (groups
  // are not read; a match with groups returns 0, "ovector too small").
  thread_local std::unique_ptr<pcre2_match_data, MatchDataDeleter> data(
      pcre2_match_data_create(1, nullptr));
  if (!data) throw Error(where_ + ": out of memory for a regex match");
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t start = 0;
  size_t last_end = 0;
  bool any = false;
  // The first call checks the text's UTF-8 once; later calls skip the check,
  // which PCRE2 would otherwise repeat from each start offset.
  uint32_t options = 0;
  while (start <= text.size()) {
    int rc = pcre2_match(code_, subject, text.size(), start, options, data.get(), nullptr);
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT) {
      // The JIT's default 32 KiB stack can run out on a long subject; the
      // interpreter keeps its backtracking on the heap and gives the same
      // match.
      rc = pcre2_match(code_, subject, text.size(), start, options | PCRE2_NO_JIT, data.get(),
                       nullptr);
    }
    options = PCRE2_NO_UTF_CHECK;
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(rc, message, sizeof(message));
      throw Error(where_ + ": matching the pattern failed (" +
                  reinterpret_cast<const char*>(message) + ")");
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(data.get());
    const size_t b = ov[0], e = ov[1];
    if (b == e && any && b == last_end) {
      // Rust's rule: no empty match where the last one ended; move one
      // character on and look again.
      if (start >= text.size()) break;
      start += SequenceLength(static_cast<unsigned char>(text[start]));
      continue;
    }
    spans.emplace_back(b, e);
    any = true;
    last_end = e;
    if (e > b) {
      start = e;
    } else {
      if (e >= text.size()) break;
      start = e + SequenceLength(static_cast<unsigned char>(text[e]));
    }
  }
}

std::string Regex::UnicodeVersion() {
  char version[32] = {};
  pcre2_config(PCRE2_CONFIG_UNICODE_VERSION, version);
  return version;
}

std::string Regex::Escape(std::string_view literal) {
  std::string out;
  out.reserve(literal.size() * 2);
  for (const char c : literal) {
    if (std::string_view("\\^$.|?*+()[]{}-#&~ \t\n\r\v\f").find(c) != std::string_view::npos) {
      switch (c) {
        case '\t':
          out += "\\t";
          continue;
        case '\n':
          out += "\\n";
          continue;
        case '\r':
          out += "\\r";
          continue;
        case '\v':
          out += "\\x0b";
          continue;
        case '\f':
          out += "\\f";
          continue;
        default:
          out.push_back('\\');
      }
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace phasor::tokenizers

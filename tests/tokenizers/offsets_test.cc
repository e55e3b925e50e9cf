// Token offsets against the Rust tokenizers crate, line by line: the folders
// of make_folders.py on the corpus, against golden/FOLDER.offsets.KIND.txt
// that make_offsets_golden.mjs made with the crate's Node bindings (npm
// tokenizers 0.23.2), whose offsets are code points. The same lines in bytes
// must be the golden spans turned into bytes of the line, and the ids of the
// offsets path those of the plain path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/lines.h"
#include "tests/support/paths.h"
#include "tokenizers/tokenizer.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

using testing::ReadLines;

// The golden form: "b,e" a token, spaces between, a TAB at pair_start.
std::string Format(const Encoding& e) {
  std::string out;
  for (size_t i = 0; i < e.offsets.size(); ++i) {
    if (e.pair_start >= 0 && static_cast<int64_t>(i) == e.pair_start) {
      out += '\t';
    } else if (i > 0) {
      out += ' ';
    }
    out += std::to_string(e.offsets[i].first) + "," + std::to_string(e.offsets[i].second);
  }
  if (e.pair_start >= 0 && e.pair_start >= static_cast<int64_t>(e.offsets.size())) out += '\t';
  return out;
}

// White_Space characters of more than one UTF-8 byte (PropList.txt).
bool IsMultiByteSpace(char32_t c) {
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// Whether got (bytes) is the golden line's spans (code points) in bytes of the
// text each part belongs to. One rule of the crate's byte offsets is not a
// conversion: trim_offsets moves a span's start by the count of space
// characters its token begins with, in bytes as in code points, so a token
// "\u00a0<mask>" (lstrip took the no-break space) starts one byte into the
// two-byte space where the code point start is past it. Such spans are
// counted in trimmed.
bool SameInBytes(const std::string& golden, const Encoding& got, const std::string& a,
                 const std::string& b, int& trimmed) {
  std::vector<std::pair<int64_t, int64_t>> want;
  std::vector<int> part;
  int in_b = 0;
  std::string token;
  auto flush = [&]() {
    if (token.empty()) return;
    const size_t comma = token.find(',');
    want.emplace_back(std::stoll(token.substr(0, comma)), std::stoll(token.substr(comma + 1)));
    part.push_back(in_b);
    token.clear();
  };
  for (const char c : golden) {
    if (c == ' ' || c == '\t') {
      flush();
      in_b |= c == '\t';
    } else {
      token += c;
    }
  }
  flush();
  if (want.size() != got.offsets.size()) return false;
  for (size_t k = 0; k < want.size(); ++k) {
    const std::string& text = part[k] ? b : a;
    std::vector<size_t> byte_of{0};  // byte_of[c]: where code point c begins
    std::vector<char32_t> chars;
    for (size_t i = 0; i < text.size();) {
      chars.push_back(NextCodePoint(text, i));
      byte_of.push_back(i);
    }
    auto at = [&](int64_t c) { return byte_of[std::min<size_t>(c, byte_of.size() - 1)]; };
    const auto [s, e] = want[k];
    const bool special = s == 0 && e == 0;
    const int64_t wb = special ? 0 : static_cast<int64_t>(at(s));
    const int64_t we = special ? 0 : static_cast<int64_t>(at(e));
    if (got.offsets[k] == std::make_pair(wb, we)) continue;
    // The trimmed multi-byte space: one byte past its own start.
    const bool space_before = s > 0 && static_cast<size_t>(s) <= chars.size() &&
                              IsMultiByteSpace(chars[static_cast<size_t>(s) - 1]);
    if (space_before && got.offsets[k].first == static_cast<int64_t>(at(s - 1)) + 1 &&
        got.offsets[k].second == we) {
      ++trimmed;
      continue;
    }
    return false;
  }
  return true;
}

// The golden line's spans in bytes, for messages.
std::string ToBytes(const std::string& golden, const std::string& a, const std::string& b) {
  std::string out;
  const std::string* text = &a;
  auto byte_of = [&](int64_t cp) {
    size_t i = 0;
    for (int64_t k = 0; k < cp && i < text->size(); ++k) NextCodePoint(*text, i);
    return i;
  };
  std::string token;
  auto flush = [&]() {
    if (token.empty()) return;
    const size_t comma = token.find(',');
    const int64_t s = std::stoll(token.substr(0, comma)), e = std::stoll(token.substr(comma + 1));
    out += std::to_string(byte_of(s)) + "," + std::to_string(byte_of(e));
    token.clear();
  };
  for (const char c : golden) {
    if (c == ' ' || c == '\t') {
      flush();
      out += c;
      if (c == '\t') text = &b;
    } else {
      token += c;
    }
  }
  flush();
  return out;
}

struct OffsetsCase {
  const char* folder;
  const char* kind;  // corpus/KIND.txt: "single", "pairs" or "added" (single texts)
  bool pairs() const { return std::string_view(kind) == "pairs"; }
};

// gtest's name of a case in messages, instead of its bytes.
void PrintTo(const OffsetsCase& c, std::ostream* os) { *os << c.folder << " " << c.kind; }

class TokenizerOffsets : public ::testing::TestWithParam<OffsetsCase> {};

TEST_P(TokenizerOffsets, MatchRustLineByLine) {
  const OffsetsCase& p = GetParam();
  const std::string data = std::string(phasor::testing::kTestDataDir) + "/tokenizers";
  const std::string kind = p.kind;
  const auto corpus = ReadLines(data + "/corpus/" + kind + ".txt");
  const auto golden = ReadLines(data + "/golden/" + p.folder + ".offsets." + kind + ".txt");
  ASSERT_EQ(corpus.size(), golden.size());
  const auto tok =
      Tokenizer::Load(std::string(phasor::testing::kTokenizerFoldersDir) + "/" + p.folder);
  TokenizeOptions chars, bytes, plain;
  chars.offsets = OffsetUnit::kCodePoints;
  bytes.offsets = OffsetUnit::kBytes;
  int same = 0, reported = 0, trimmed = 0;
  for (size_t n = 0; n < corpus.size(); ++n) {
    std::string a = corpus[n], b;
    if (p.pairs()) {
      const size_t tab = a.find('\t');
      b = a.substr(tab + 1);
      a.resize(tab);
    }
    auto run = [&](const TokenizeOptions& o) {
      return p.pairs() ? tok->EncodePair(a, b, o) : tok->Encode(a, o);
    };
    const Encoding c = run(chars), y = run(bytes), ids = run(plain);
    const bool ok = Format(c) == golden[n] && SameInBytes(golden[n], y, a, b, trimmed) &&
                    c.ids == ids.ids && y.ids == ids.ids && ids.offsets.empty() &&
                    c.special.size() == c.ids.size();
    if (ok) {
      ++same;
    } else if (++reported <= 5) {
      ADD_FAILURE() << p.folder << " " << kind << " line " << n + 1 << "\n  code points: got  "
                    << Format(c) << "\n               want " << golden[n]
                    << "\n  bytes:       got  " << Format(y) << "\n               want "
                    << ToBytes(golden[n], a, b);
    }
  }
  std::printf(
      "[ offsets  ] %s %s: %d of %zu lines identical (%d byte starts inside a trimmed "
      "space)\n",
      p.folder, kind.c_str(), same, corpus.size(), trimmed);
  EXPECT_EQ(same, static_cast<int>(corpus.size()));
}

std::vector<OffsetsCase> OffsetsCases() {
  std::vector<OffsetsCase> cases;
  for (const char* folder : {"bert-uncased", "bert-cased", "roberta-bpe", "xlmr-unigram",
                             "mpnet-wordpiece", "mpnet-vocab-only", "modernbert-bpe"}) {
    for (const char* kind : {"single", "pairs", "added"}) cases.push_back({folder, kind});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Corpus, TokenizerOffsets, ::testing::ValuesIn(OffsetsCases()),
                         [](const auto& info) {
                           std::string name =
                               std::string(info.param.folder) + "_" + info.param.kind;
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace phasor::tokenizers

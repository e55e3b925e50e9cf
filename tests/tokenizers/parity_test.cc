// Token ids against Hugging Face's tokenizers, line by line: the folders of
// tests/data/tokenizers/make_folders.py (written at build time under
// the build's tokenizer folders, from real vocabularies) on the corpus of
// make_corpus.py, against the golden ids make_golden.mjs made with Hugging
// Face's own implementation (tests/data/tokenizers/README.md). Every line must
// match; a failure names the folder, golden file, line, text and the first
// differing id, and the count of identical lines is printed either way.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/error.h"
#include "tests/support/lines.h"
#include "tests/support/paths.h"
#include "tokenizers/tokenizer.h"

namespace phasor::tokenizers {
namespace {

std::string DataDir() { return std::string(phasor::testing::kTestDataDir) + "/tokenizers"; }

// The lines of a file split on '\n' only (a line may hold '\r', '\v', U+2028...).
using testing::ReadLines;

// The tokens-file form of `phasor tokenize`: ids separated by spaces, and a
// TAB instead of the space before the pair's second part.
std::string Format(const Encoding& e) {
  std::string out;
  for (size_t i = 0; i < e.ids.size(); ++i) {
    if (e.pair_start >= 0 && static_cast<int64_t>(i) == e.pair_start) {
      out += '\t';
    } else if (i > 0) {
      out += ' ';
    }
    out += std::to_string(e.ids[i]);
  }
  if (e.pair_start >= 0 && e.pair_start >= static_cast<int64_t>(e.ids.size())) out += '\t';
  return out;
}

// A line for a message: printable ASCII as it is, the rest as \xNN / \uNNNN
// escapes of the bytes, at most `limit` characters of it.
std::string Escape(std::string_view s, size_t limit = 160) {
  std::string out;
  char buf[16];
  for (unsigned char c : s) {
    if (out.size() >= limit) {
      out += "...";
      break;
    }
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

std::vector<std::string> SplitIds(std::string_view s) {
  std::vector<std::string> ids;
  std::string cur;
  for (char c : s) {
    if (c == ' ' || c == '\t') {
      ids.push_back(cur + (c == '\t' ? "|" : ""));
      cur.clear();
    } else {
      cur += c;
    }
  }
  ids.push_back(cur);
  return ids;
}

// "at id 4: got 1996, want 2023 (got ... want ...)": where two formatted lines
// first differ, with a few ids either side (a TAB shown as '|').
std::string FirstDifference(const std::string& got, const std::string& want) {
  const std::vector<std::string> g = SplitIds(got), w = SplitIds(want);
  size_t i = 0;
  while (i < g.size() && i < w.size() && g[i] == w[i]) ++i;
  auto window = [i](const std::vector<std::string>& v) {
    std::string s;
    const size_t from = i >= 3 ? i - 3 : 0;
    for (size_t k = from; k < v.size() && k < i + 4; ++k) s += (s.empty() ? "" : " ") + v[k];
    return "[" + s + (v.size() > i + 4 ? " ..." : "") + "]";
  };
  std::ostringstream os;
  os << "at id " << i << ": got " << (i < g.size() ? g[i] : "(end)") << ", want "
     << (i < w.size() ? w[i] : "(end)") << "; got " << window(g) << " (" << g.size()
     << " ids), want " << window(w) << " (" << w.size() << " ids)";
  return os.str();
}

struct ParityCase {
  std::string folder;  // under phasor::testing::kTokenizerFoldersDir
  std::string golden;  // the folder whose golden files hold its ids
  const char* kind;    // corpus/KIND.txt: "single", "pairs" or "added" (single texts)
  bool add_special_tokens;
  bool pairs() const { return std::string_view(kind) == "pairs"; }
};

// gtest's name of a case in messages, instead of its bytes.
void PrintTo(const ParityCase& p, std::ostream* os) {
  *os << p.folder << " " << p.kind << (p.add_special_tokens ? " with" : " without")
      << " special tokens";
}

std::string CaseName(const ::testing::TestParamInfo<ParityCase>& info) {
  std::string name = info.param.folder + "_" + info.param.kind +
                     (info.param.add_special_tokens ? "_special" : "_no_special");
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

class TokenizerParity : public ::testing::TestWithParam<ParityCase> {};

TEST_P(TokenizerParity, MatchesHuggingFaceLineByLine) {
  const ParityCase& p = GetParam();
  const std::string folder = std::string(phasor::testing::kTokenizerFoldersDir) + "/" + p.folder;
  const std::string kind = p.kind;
  const std::string golden_name =
      p.golden + "." + kind + (p.add_special_tokens ? ".special" : ".no_special") + ".txt";
  const std::vector<std::string> corpus = ReadLines(DataDir() + "/corpus/" + kind + ".txt");
  const std::vector<std::string> golden = ReadLines(DataDir() + "/golden/" + golden_name);
  ASSERT_FALSE(corpus.empty());
  ASSERT_EQ(corpus.size(), golden.size()) << golden_name << " and corpus/" << kind << ".txt";

  std::shared_ptr<const Tokenizer> tok;
  try {
    tok = Tokenizer::Load(folder);
  } catch (const Error& e) {
    FAIL() << p.folder << ": " << e.what();
  }
  ASSERT_NE(tok, nullptr);

  TokenizeOptions options;
  options.add_special_tokens = p.add_special_tokens;
  size_t identical = 0;
  size_t reported = 0;
  constexpr size_t kMaxReported = 10;
  for (size_t i = 0; i < corpus.size(); ++i) {
    const std::string& line = corpus[i];
    std::string got;
    try {
      if (p.pairs()) {
        const size_t tab = line.find('\t');
        ASSERT_NE(tab, std::string::npos) << "corpus/pairs.txt line " << i + 1 << " has no tab";
        got = Format(tok->EncodePair(std::string_view(line).substr(0, tab),
                                     std::string_view(line).substr(tab + 1), options));
      } else {
        got = Format(tok->Encode(line, options));
      }
    } catch (const Error& e) {
      got = std::string("error: ") + e.what();
    }
    if (got == golden[i]) {
      ++identical;
    } else if (reported++ < kMaxReported) {
      ADD_FAILURE() << p.folder << ", golden/" << golden_name << " line " << i + 1 << ": \""
                    << Escape(line) << "\"\n  " << FirstDifference(got, golden[i]);
    }
  }
  std::printf("[ parity   ] %s, golden/%s: %zu of %zu lines identical\n", p.folder.c_str(),
              golden_name.c_str(), identical, corpus.size());
  EXPECT_EQ(identical, corpus.size())
      << p.folder << ", golden/" << golden_name << ": " << corpus.size() - identical
      << " lines differ" << (reported > kMaxReported ? " (the first 10 shown)" : "");
}

std::vector<ParityCase> AllCases() {
  // bert-vocab-only (vocab.txt alone) is read as bert-uncased's pipeline.
  const std::pair<const char*, const char*> folders[] = {
      {"bert-uncased", "bert-uncased"},         {"bert-cased", "bert-cased"},
      {"bert-vocab-only", "bert-uncased"},      {"roberta-bpe", "roberta-bpe"},
      {"xlmr-unigram", "xlmr-unigram"},         {"mpnet-wordpiece", "mpnet-wordpiece"},
      {"mpnet-vocab-only", "mpnet-vocab-only"}, {"modernbert-bpe", "modernbert-bpe"}};
  std::vector<ParityCase> cases;
  for (const auto& [folder, golden] : folders) {
    for (const char* kind : {"single", "pairs", "added"}) {
      for (bool special : {true, false}) cases.push_back({folder, golden, kind, special});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Folders, TokenizerParity, ::testing::ValuesIn(AllCases()), CaseName);

}  // namespace
}  // namespace phasor::tokenizers

// Every code point of planes 0-3 and 14 (surrogates aside) alone ("X") and
// between letters ("aXb"; for qwen3-nfc and the byte folders also "eX\u0301"), against the ids of
// the Rust crate `tokenizers` 0.23.2 (golden/sweep.NAME.txt, made by
// tests/data/tokenizers/make_sweep_golden.mjs with its Node bindings). This is
// where the crate's Unicode versions show: BERT's classes from Unicode 8.0,
// normalisation from 9.0, regex classes from 16.0 (tokenizers/unicode.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/paths.h"
#include "tokenizers/tokenizer.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

std::string Ids(const Encoding& e) {
  std::string out;
  for (size_t i = 0; i < e.ids.size(); ++i) out += (i ? " " : "") + std::to_string(e.ids[i]);
  return out;
}

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
    fields.push_back(line.substr(start, tab - start));
  fields.push_back(line.substr(start));
  return fields;
}

// The text of code point c for a golden's template ("aXb": X is c).
std::string Text(const std::string& form, char32_t c) {
  std::string x;
  AppendUtf8(x, c);
  std::string text = form;
  text.replace(form.find('X'), 1, x);
  return text;
}

// The templates of a golden's header: "... FIRST LAST<TAB>ids of X<TAB>ids of
// aXb (a note)".
std::vector<std::string> Templates(const std::string& header) {
  std::vector<std::string> fields = SplitTabs(header.substr(0, header.find(" (", 20)));
  std::vector<std::string> forms;
  for (size_t i = 1; i < fields.size(); ++i) {
    EXPECT_EQ(fields[i].rfind("ids of ", 0), 0u) << header;
    forms.push_back(fields[i].substr(7));
  }
  return forms;
}

// The UTF-8 bytes of text as ids (the byte-token folders' ids of an unchanged text).
std::string Bytes(const std::string& text) {
  std::string out;
  for (const unsigned char b : text) out += (out.empty() ? "" : " ") + std::to_string(b);
  return out;
}

// A golden line: code points first..last and the ids of each text.
struct GoldenRun {
  uint32_t first = 0, last = 0;
  std::vector<std::string> ids;
};

std::vector<GoldenRun> ReadRuns(const std::string& path, std::vector<std::string>& forms) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::vector<GoldenRun> runs;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '#') forms = Templates(line);
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields = SplitTabs(line);
    EXPECT_GE(fields.size(), 3u) << line;
    GoldenRun r;
    std::istringstream range(fields[0]);
    EXPECT_TRUE(range >> std::hex >> r.first >> r.last) << line;
    r.ids.assign(fields.begin() + 1, fields.end());
    runs.push_back(std::move(r));
  }
  return runs;
}

class TokenizerSweepTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TokenizerSweepTest, EveryCodePointAsTheRustCrate) {
  const std::string name = GetParam();
  const std::string data = std::string(phasor::testing::kTestDataDir) + "/tokenizers";
  const std::string own = data + "/sweep/" + name;
  const auto tok =
      Tokenizer::Load(std::filesystem::is_directory(own)
                          ? own
                          : std::string(phasor::testing::kTokenizerFoldersDir) + "/" + name);
  std::vector<std::string> forms;
  const std::vector<GoldenRun> runs = ReadRuns(data + "/golden/sweep." + name + ".txt", forms);
  ASSERT_FALSE(runs.empty());
  ASSERT_EQ(forms.size(), runs[0].ids.size());
  // A "-bytes" golden lists only the code points whose ids are not their text's bytes.
  const bool only_changed = name.size() > 6 && name.compare(name.size() - 6, 6, "-bytes") == 0;
  TokenizeOptions options;
  options.add_special_tokens = false;
  int64_t code_points = 0, wrong = 0;
  size_t at = 0;  // the first run that does not end before c
  for (uint32_t c = 0; c < 0xF0000; ++c) {
    if ((c >= 0xD800 && c <= 0xDFFF) || (c >= 0x40000 && c < 0xE0000)) continue;
    ++code_points;
    while (at < runs.size() && runs[at].last < c) ++at;
    const bool listed = at < runs.size() && runs[at].first <= c;
    if (!listed && !only_changed) {
      if (++wrong <= 10) ADD_FAILURE() << name << ": U+" << std::hex << c << " is in no run";
      continue;
    }
    for (size_t form = 0; form < forms.size(); ++form) {
      const std::string text = Text(forms[form], c);
      const std::string want = listed ? runs[at].ids[form] : Bytes(text);
      const std::string got = Ids(tok->Encode(text, options));
      if (got == want) continue;
      if (++wrong <= 10) {
        ADD_FAILURE() << name << ": U+" << std::hex << c << std::dec << " (in " << forms[form]
                      << "): ids " << got << ", the crate gives " << want;
      }
      break;
    }
  }
  EXPECT_EQ(code_points, 5 * 65536 - 2048);
  EXPECT_EQ(wrong, 0) << name << ": " << wrong << " of " << code_points << " code points differ";
  std::printf("[ sweep    ] %s: %lld of %lld code points as the crate\n", name.c_str(),
              static_cast<long long>(code_points - wrong), static_cast<long long>(code_points));
}

INSTANTIATE_TEST_SUITE_P(Folders, TokenizerSweepTest,
                         ::testing::Values("bert-uncased", "bert-cased", "xlmr-unigram",
                                           "qwen3-split", "llama3-split", "qwen3-nfc",
                                           "lowercase-bytes", "nfkc-bytes", "digits-split",
                                           "whitespace-split", "single-word", "stripaccents-bytes",
                                           "bertnormalizer-bytes"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace phasor::tokenizers

// Every code point of planes 0-3 and 14 (surrogates aside) alone ("X") and
// between letters ("aXb"; for qwen3-nfc also "eX\u0301"), against the ids of
// the Rust crate `tokenizers` 0.23.2 (golden/sweep.NAME.txt, made by
// tests/data/tokenizers/make_sweep_golden.mjs with its Node bindings). This is
// where the crate's Unicode versions show: BERT's classes from Unicode 8.0,
// normalisation from 9.0, regex classes from 16.0 (models/tokenizers/unicode.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/tokenizers/tokenizer.h"
#include "models/tokenizers/utf8.h"

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

// The texts of code point c in the golden's order: X, aXb and eX\u0301.
std::string Text(size_t form, char32_t c) {
  std::string x;
  AppendUtf8(x, c);
  if (form == 0) return x;
  if (form == 1) return "a" + x + "b";
  return "e" + x + "\xCC\x81";
}

class TokenizerSweepTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TokenizerSweepTest, EveryCodePointAsTheRustCrate) {
  const std::string name = GetParam();
  const std::string data = std::string(PHASOR_TEST_DATA) + "/tokenizers";
  const std::string own = data + "/sweep/" + name;
  const auto tok = Tokenizer::Load(std::filesystem::is_directory(own)
                                       ? own
                                       : std::string(PHASOR_TOKENIZER_FOLDERS) + "/" + name);
  std::ifstream in(data + "/golden/sweep." + name + ".txt");
  ASSERT_TRUE(in) << "no golden for " << name;
  TokenizeOptions options;
  options.add_special_tokens = false;
  std::string line;
  int64_t code_points = 0, wrong = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> fields = SplitTabs(line);
    ASSERT_GE(fields.size(), 3u) << line;
    std::istringstream range(fields[0]);
    uint32_t first = 0, last = 0;
    ASSERT_TRUE(range >> std::hex >> first >> last) << line;
    for (uint32_t c = first; c <= last; ++c) {
      ++code_points;
      for (size_t form = 0; form + 1 < fields.size(); ++form) {
        const std::string got = Ids(tok->Encode(Text(form, c), options));
        if (got == fields[form + 1]) continue;
        if (++wrong <= 10) {
          ADD_FAILURE() << name << ": U+" << std::hex << c << std::dec << " (text " << form
                        << "): ids " << got << ", the crate gives " << fields[form + 1];
        }
        break;
      }
    }
  }
  EXPECT_EQ(code_points, 5 * 65536 - 2048);
  EXPECT_EQ(wrong, 0) << name << ": " << wrong << " of " << code_points << " code points differ";
  std::printf("[ sweep    ] %s: %lld of %lld code points as the crate\n", name.c_str(),
              static_cast<long long>(code_points - wrong), static_cast<long long>(code_points));
}

INSTANTIATE_TEST_SUITE_P(Folders, TokenizerSweepTest,
                         ::testing::Values("bert-uncased", "bert-cased", "xlmr-unigram",
                                           "qwen3-split", "llama3-split", "qwen3-nfc"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace phasor::tokenizers

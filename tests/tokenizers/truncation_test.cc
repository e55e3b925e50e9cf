// Pair truncation (longest_first) against the Rust crate `tokenizers` 0.23.2:
// tests/data/tokenizers/golden/truncation.txt, made by
// make_truncation_golden.mjs with the crate's Node bindings on bert-uncased,
// for every pair of lengths 0..25 and every budget 1..26, with and without
// special tokens.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/paths.h"
#include "tokenizers/tokenizer.h"

namespace phasor::tokenizers {
namespace {

// n words "a", one id each in bert-uncased.
std::string Words(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += i ? " a" : "a";
  return s;
}

TEST(TokenizerTruncationTest, PairsAreCutAsTheRustCrateCutsThem) {
  const auto tok =
      Tokenizer::Load(std::string(phasor::testing::kTokenizerFoldersDir) + "/bert-uncased");
  const std::string path =
      std::string(phasor::testing::kTestDataDir) + "/tokenizers/golden/truncation.txt";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot read " << path;
  std::string line;
  int64_t cases = 0, wrong = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    int special = 0, len_a = 0, len_b = 0, max_length = 0, kept_a = 0, kept_b = 0;
    ASSERT_TRUE(fields >> special >> len_a >> len_b >> max_length >> kept_a >> kept_b) << line;
    TokenizeOptions options;
    options.add_special_tokens = special == 1;
    options.max_length = max_length;
    const Encoding e = tok->EncodePair(Words(len_a), Words(len_b), options);
    // The second text's ids begin at pair_start; each part ends in [SEP] with special tokens.
    const int64_t a = e.pair_start - (special ? 2 : 0);
    const int64_t b = static_cast<int64_t>(e.ids.size()) - e.pair_start - special;
    ++cases;
    if (a != kept_a || b != kept_b) {
      if (++wrong <= 10) {
        ADD_FAILURE() << "special " << special << ", lengths " << len_a << " and " << len_b
                      << ", max_length " << max_length << ": kept " << a << " and " << b
                      << ", the crate keeps " << kept_a << " and " << kept_b;
      }
    }
  }
  EXPECT_EQ(cases, 2 * 26 * 26 * 26);
  EXPECT_EQ(wrong, 0) << wrong << " of " << cases << " cases differ";
}

}  // namespace
}  // namespace phasor::tokenizers

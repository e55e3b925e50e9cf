// The normalizers of tokenizer.json (tokenizers/normalizer.h) against
// outside references. Each expected value says where it comes from:
//   [js]   @huggingface/tokenizers 0.2.0 (the JS port) run by node on the same
//          JSON config, where its code does what the Rust crate's does;
//   [rust] a value in the Rust crate's own unit tests (tokenizers/src/
//          normalizers/*.rs), or read off its code where the JS port differs;
//   [spm]  SentencePiece 0.1.97 (python3-sentencepiece) normalizing with the
//          rules of tests/data/tokenizers/unit/charsmap_rules.tsv
//          (make_charsmap.py --show prints these).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/support/error_of.h"
#include "tests/support/paths.h"
#include "tokenizers/normalizer.h"

namespace phasor::tokenizers {
namespace {

using nlohmann::json;
using testing::ErrorOf;

std::string Normalized(const json& spec, std::string text) {
  auto n = MakeNormalizer(spec, "tokenizer.json: normalizer");
  EXPECT_NE(n, nullptr);
  if (n) n->Normalize(text);
  return text;
}

json Bert(bool clean, bool chinese, json strip, bool lower) {
  return {{"type", "BertNormalizer"},
          {"clean_text", clean},
          {"handle_chinese_chars", chinese},
          {"strip_accents", strip},
          {"lowercase", lower}};
}

TEST(NormalizersTest, NullIsNoNormalizer) {
  EXPECT_EQ(MakeNormalizer(nullptr, "tokenizer.json: normalizer"), nullptr);
}

TEST(NormalizersTest, BertNormalizerAsBertUncased) {
  const json spec = Bert(true, true, nullptr, true);
  // [js] clean_text: \t \r \n and U+00A0 to ' '; lowercase; accents stripped
  // (strip_accents null follows lowercase).
  EXPECT_EQ(Normalized(spec, u8"H\u00E9llo\tW\u00F6rld\u00A0!\r\n"), "hello world !  ");
  // [js] U+0000, U+FFFD, controls (U+0007) and format characters (U+200B,
  // U+00AD: Cf) removed.
  EXPECT_EQ(Normalized(spec, std::string(u8"a\u0000b\uFFFDc\u200Bd\u0007e\u00ADf", 16)), "abcdef");
  // [js] CJK ideographs padded; hiragana (U+3042) is not in bert.rs's ranges.
  EXPECT_EQ(Normalized(spec, u8"\u4E2D\u6587abc\u3042"), u8" \u4E2D  \u6587 abc\u3042");
  // [js] U+0130 and U+212B: the accent goes, the letter is lowercased.
  EXPECT_EQ(Normalized(spec, u8"\u0130stanbul \u00C5NGSTR\u00D6M"), "istanbul angstrom");
  EXPECT_EQ(Normalized(spec, u8"\u1E9B\u0323 \u212B"), u8"\u017F a");
  // [js] The virama U+094D is Mn and goes; other Devanagari stays.
  EXPECT_EQ(Normalized(spec, u8"\u0915\u094D\u0937 \u0928\u092E\u0938\u094D\u0924\u0947"),
            u8"\u0915\u0937 \u0928\u092E\u0938\u0924");
  // [rust] bert.rs pads its ranges by code point, beyond the BMP too (the JS
  // port walks UTF-16 units and misses U+20000..).
  EXPECT_EQ(Normalized(spec, u8"a\U00020000b"), u8"a \U00020000 b");
  // [rust] bert.rs's is_control has no unassigned (Cn) entries: U+0378 stays.
  EXPECT_EQ(Normalized(spec, u8"a\u0378b"), u8"a\u0378b");
}

TEST(NormalizersTest, BertNormalizerStripAccentsNullFollowsLowercase) {
  // [js] lowercase false, strip_accents null: accents kept.
  EXPECT_EQ(Normalized(Bert(true, true, nullptr, false), u8"H\u00E9llo W\u00F6rld"),
            u8"H\u00E9llo W\u00F6rld");
  // [js] strip_accents absent is null too.
  json absent = Bert(true, true, nullptr, false);
  absent.erase("strip_accents");
  EXPECT_EQ(Normalized(absent, u8"H\u00E9llo"), u8"H\u00E9llo");
  // [js] strip_accents false with lowercase: accents kept.
  EXPECT_EQ(Normalized(Bert(true, false, false, true), u8"H\u00C9LLO \u4E2D"),
            u8"h\u00E9llo \u4E2D");
  // [js] strip_accents true without clean_text: controls kept, NFD'd accents
  // dropped.
  EXPECT_EQ(Normalized(Bert(false, false, true, false), u8"H\u00E9llo\tW\u00F6rld\u0007 \u4E2D"),
            u8"Hello\tWorld\u0007 \u4E2D");
}

TEST(NormalizersTest, LowercaseIsPerCodePoint) {
  // [js] Full mappings (U+0130 -> i + U+0307), Georgian U+10A0 -> U+2D00.
  EXPECT_EQ(Normalized({{"type", "Lowercase"}},
                       u8"HeLLo \u00C5NGSTR\u00D6M \u0130 \u0391\u03A3\u0391 \u10A0"),
            u8"hello \u00E5ngstr\u00F6m i\u0307 \u03B1\u03C3\u03B1 \u2D00");
  // [rust] utils.rs maps each char alone (char::to_lowercase), so a
  // word-final capital sigma is σ, not ς (the JS port's toLowerCase gives ς).
  EXPECT_EQ(Normalized({{"type", "Lowercase"}}, u8"\u039F\u03A3"), u8"\u03BF\u03C3");
}

TEST(NormalizersTest, StripAccentsDropsEveryMark) {
  // [js] Mn (U+0301, U+0308, U+094D) and Mc (U+093E) all go; a precomposed
  // é is no mark and stays.
  EXPECT_EQ(Normalized({{"type", "StripAccents"}},
                       u8"Cafe\u0301 nai\u0308ve \u0915\u094D\u0937\u093E \u00E9"),
            u8"Cafe naive \u0915\u0937 \u00E9");
  // [rust] strip.rs test_strip_accents_multiple.
  EXPECT_EQ(Normalized({{"type", "StripAccents"}}, u8"e\u0304\u0304\u0304o"), "eo");
  // [rust] strip.rs test_vietnamese_bug: NFKD, StripAccents, Lowercase.
  const json seq = {
      {"type", "Sequence"},
      {"normalizers", {{{"type", "NFKD"}}, {{"type", "StripAccents"}}, {{"type", "Lowercase"}}}}};
  EXPECT_EQ(Normalized(seq, u8"\u1EAD\u2026"), "a...");
  // [rust] strip.rs test_thai_bug.
  EXPECT_EQ(Normalized(seq, u8"\u0E33\u0E19\u0E49\u0E333\u0E25\u0E33"),
            u8"\u0E32\u0E19\u0E323\u0E25\u0E32");
}

TEST(NormalizersTest, UnicodeForms) {
  // [js]
  EXPECT_EQ(Normalized({{"type", "NFKC"}}, u8"\uFB01 \u2460 \uFF21\u0301 x\u00B2"),
            u8"fi 1 \u00C1 x2");
  EXPECT_EQ(Normalized({{"type", "NFD"}}, u8"\u00E9\u1E9B\u0323"), u8"e\u0301\u017F\u0323\u0307");
  EXPECT_EQ(Normalized({{"type", "NFC"}}, u8"e\u0301"), u8"\u00E9");
  EXPECT_EQ(Normalized({{"type", "NFKD"}}, u8"\uFB01"), "fi");
}

TEST(NormalizersTest, StripTakesWhiteSpaceOffTheChosenEnds) {
  // [js]
  EXPECT_EQ(Normalized({{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}},
                       u8"  \t hi there \u3000\n"),
            "hi there");
  EXPECT_EQ(Normalized({{"type", "Strip"}, {"strip_left", false}, {"strip_right", true}}, "  hi  "),
            "  hi");
  EXPECT_EQ(Normalized({{"type", "Strip"}, {"strip_left", true}, {"strip_right", false}}, "  hi  "),
            "hi  ");
  // [rust] char::is_whitespace is White_Space: U+0085 is, U+200B is not.
  EXPECT_EQ(Normalized({{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}},
                       u8"\u0085x\u200B"),
            u8"x\u200B");
}

TEST(NormalizersTest, ReplaceStringAndRegex) {
  // [rust] replace.rs test_replace and test_replace_regex; [js] agrees.
  EXPECT_EQ(Normalized({{"type", "Replace"}, {"pattern", {{"String", "''"}}}, {"content", "\""}},
                       "This is a ''test''"),
            "This is a \"test\"");
  EXPECT_EQ(Normalized({{"type", "Replace"}, {"pattern", {{"Regex", "\\s+"}}}, {"content", " "}},
                       "This     is   a \t\n test"),
            "This is a test");
  // [js] the SentencePiece-style space escape.
  EXPECT_EQ(
      Normalized({{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", u8"\u2581"}},
                 "Hey friend  here"),
      u8"Hey\u2581friend\u2581\u2581here");
  // [rust] a String pattern is escaped: "." matches only a dot.
  EXPECT_EQ(
      Normalized({{"type", "Replace"}, {"pattern", {{"String", "."}}}, {"content", "!"}}, "a.b c"),
      "a!b c");
}

TEST(NormalizersTest, PrependOnlyToText) {
  // [rust] prepend.rs test_prepend; an empty text stays empty (the crate
  // checks is_empty first; the JS port would prepend).
  EXPECT_EQ(Normalized({{"type", "Prepend"}, {"prepend", u8"\u2581"}}, "Hello"), u8"\u2581Hello");
  EXPECT_EQ(Normalized({{"type", "Prepend"}, {"prepend", u8"\u2581"}}, ""), "");
}

TEST(NormalizersTest, SequenceRunsInOrder) {
  // [js]
  const json seq = {
      {"type", "Sequence"},
      {"normalizers", {{{"type", "NFD"}}, {{"type", "StripAccents"}}, {{"type", "Lowercase"}}}}};
  EXPECT_EQ(Normalized(seq, u8"C\u00F4t\u00E9 \u00C9T\u00C9"), "cote ete");
}

std::string Charsmap() {
  std::ifstream f(std::string(phasor::testing::kTestDataDir) +
                  "/tokenizers/unit/charsmap_rules.b64");
  std::string b64;
  f >> b64;
  EXPECT_FALSE(b64.empty());
  return b64;
}

TEST(NormalizersTest, PrecompiledAgreesWithSentencePieceOnWholeClusters) {
  const json spec = {{"type", "Precompiled"}, {"precompiled_charsmap", Charsmap()}};
  // [spm] one grapheme cluster whose longest key is also its shortest.
  EXPECT_EQ(Normalized(spec, "A"), "a");
  EXPECT_EQ(Normalized(spec, u8"e\u0301"), u8"\u00E9");
  EXPECT_EQ(Normalized(spec, u8"\uFF21"), "A");
  EXPECT_EQ(Normalized(spec, u8"\u2160"), "I");
  EXPECT_EQ(Normalized(spec, "a\rb"), "a b");
  EXPECT_EQ(Normalized(spec, u8"x\u3000y"), "x y");
  EXPECT_EQ(Normalized(spec, u8"\u00E9A"), u8"\u00E9a");
  EXPECT_EQ(Normalized(spec, "plain text"), "plain text");
  EXPECT_EQ(Normalized(spec, ""), "");
}

TEST(NormalizersTest, PrecompiledWalksClustersAsTheRustCrateDoes) {
  const json spec = {{"type", "Precompiled"}, {"precompiled_charsmap", Charsmap()}};
  // [rust] precompiled.rs looks keys up one grapheme cluster at a time, so a
  // key that spans clusters never applies ([spm] gives "x" and U+FB03).
  EXPECT_EQ(Normalized(spec, "AB"), "aB");
  EXPECT_EQ(Normalized(spec, "ffi"), "ffi");
  // [rust] a cluster under 6 bytes becomes the replacement of the *shortest*
  // key it begins with (spm_precompiled's transform takes results[0]); the
  // rest of the cluster is dropped. [spm] keeps it: "A\u0301", "é\u0301",
  // "a \nb".
  EXPECT_EQ(Normalized(spec, u8"\uFF21\u0301"), "A");
  EXPECT_EQ(Normalized(spec, u8"e\u0301\u0301"), u8"\u00E9");
  EXPECT_EQ(Normalized(spec, "a\r\nb"), "a b");
  // [rust] a cluster of 6 bytes or more goes code point by code point: no
  // single code point of e + 3 x U+0301 is a key.
  EXPECT_EQ(Normalized(spec, u8"e\u0301\u0301\u0301"), u8"e\u0301\u0301\u0301");
}

TEST(NormalizersTest, ErrorsNameTheFieldAndWhatIsRead) {
  const std::string where = "tokenizer.json: normalizer";
  auto error = [&](const json& spec) { return ErrorOf([&] { MakeNormalizer(spec, where); }); };
  const std::string unknown =
      error({{"type", "Sequence"}, {"normalizers", {{{"type", "NFC"}}, {{"type", "Foo"}}}}});
  EXPECT_NE(unknown.find("tokenizer.json: normalizer.normalizers[1].type: \"Foo\" is not a "
                         "normalizer phasor reads (it reads BertNormalizer, NFC"),
            std::string::npos)
      << unknown;
  EXPECT_EQ(error({{"type", "BertNormalizer"},
                   {"clean_text", "yes"},
                   {"handle_chinese_chars", true},
                   {"lowercase", true}}),
            "tokenizer.json: normalizer.clean_text: expected true or false, got \"yes\"");
  EXPECT_EQ(error({{"type", "BertNormalizer"}, {"clean_text", true}, {"lowercase", true}}),
            "tokenizer.json: normalizer.handle_chinese_chars: missing (it is required)");
  EXPECT_EQ(error({{"clean_text", true}}),
            "tokenizer.json: normalizer.type: missing (it is required)");
  EXPECT_EQ(error("NFC"), "tokenizer.json: normalizer: expected an object or null, got \"NFC\"");
  const std::string regex =
      error({{"type", "Replace"}, {"pattern", {{"Regex", "a(b"}}}, {"content", ""}});
  EXPECT_NE(regex.find("tokenizer.json: normalizer.pattern.Regex: the pattern \"a(b\" does not "
                       "compile (missing closing parenthesis"),
            std::string::npos)
      << regex;
  EXPECT_NE(error({{"type", "Replace"}, {"pattern", {{"Glob", "*"}}}, {"content", ""}})
                .find("normalizer.pattern: \"Glob\" is not a pattern kind"),
            std::string::npos);
  EXPECT_NE(error({{"type", "Precompiled"}, {"precompiled_charsmap", "AAA*"}})
                .find("normalizer.precompiled_charsmap: not base64"),
            std::string::npos);
  // A charsmap whose header promises more trie than it holds.
  EXPECT_NE(error({{"type", "Precompiled"}, {"precompiled_charsmap", "QAAAAA=="}})
                .find("normalizer.precompiled_charsmap: cannot parse the charsmap"),
            std::string::npos);
}

}  // namespace
}  // namespace phasor::tokenizers

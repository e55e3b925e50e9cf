// The pre-tokenizers of tokenizer.json (tokenizers/pre_tokenizer.h)
// against outside references. Each expected value says where it comes from:
//   [js]   @huggingface/tokenizers 0.2.0 (the JS port) run by node on the same
//          JSON config, where its code does what the Rust crate's does;
//   [rust] a value in the Rust crate's own unit tests (tokenizers/src/
//          pre_tokenizers/*.rs), or read off its code where the JS port
//          differs (each such case says how).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/error_of.h"
#include "tokenizers/pre_tokenizer.h"

namespace phasor::tokenizers {
namespace {

using nlohmann::json;
using testing::ErrorOf;
using Texts = std::vector<std::string>;

// The pieces spec's pre-tokenizer cuts texts into, each text given as a
// piece of its own (the first at the text's start).
Texts Split(const json& spec, const Texts& texts) {
  auto p = MakePreTokenizer(spec, "tokenizer.json: pre_tokenizer");
  EXPECT_NE(p, nullptr);
  std::string all;
  for (const std::string& t : texts) all += t;
  Pieces pieces;
  pieces.Reset(all, true, nullptr);
  std::vector<Pieces::Ref>& refs = pieces.StartCut();
  size_t at = 0;
  for (const std::string& t : texts) {
    refs.push_back(Pieces::Ref{at, at + t.size(), at == 0});
    at += t.size();
  }
  pieces.CommitCut();
  if (p) p->Split(pieces);
  Texts out;
  for (size_t i = 0; i < pieces.size(); ++i) out.emplace_back(pieces.text(i));
  return out;
}

Texts Split(const json& spec, const std::string& text) { return Split(spec, Texts{text}); }

TEST(PreTokenizersTest, NullIsNoPreTokenizer) {
  EXPECT_EQ(MakePreTokenizer(nullptr, "tokenizer.json: pre_tokenizer"), nullptr);
}

TEST(PreTokenizersTest, BertSplitsOnSpaceAndIsolatesPunctuation) {
  const json spec = {{"type", "BertPreTokenizer"}};
  // [rust] bert.rs test basic; [js] agrees.
  EXPECT_EQ(Split(spec, "Hey friend!     How are you?!?"),
            (Texts{"Hey", "friend", "!", "How", "are", "you", "?", "!", "?"}));
  // [js] Unicode punctuation (P*: ¿ « » — 。) and ASCII symbols that are not
  // P* ($ + = are Sc/Sm) alike; U+00A0 is white space.
  EXPECT_EQ(
      Split(spec,
            u8"\u00BFQu\u00E9? \u00ABhola\u00BB \u2014 \u4F60\u597D\u3002 a_b $5+3=8 \u00A0x"),
      (Texts{u8"\u00BF", u8"Qu\u00E9", "?", u8"\u00AB", "hola", u8"\u00BB", u8"\u2014",
             u8"\u4F60\u597D", u8"\u3002", "a", "_", "b", "$", "5", "+", "3", "=", "8", "x"}));
  EXPECT_EQ(Split(spec, "   "), Texts{});
}

json ByteLevel(bool add_prefix_space, bool use_regex = true) {
  return {{"type", "ByteLevel"},
          {"add_prefix_space", add_prefix_space},
          {"trim_offsets", true},
          {"use_regex", use_regex}};
}

TEST(PreTokenizersTest, ByteLevelSplitsAsGpt2AndMapsBytes) {
  // [rust] byte_level.rs tests pre_tokenization, handling_of_newlines,
  // handling_of_multiple_whitespaces, offsets_when_char_split_up; [js] agrees.
  EXPECT_EQ(Split(ByteLevel(false), "Hello my friend, how is your day going?"),
            (Texts{"Hello", u8"\u0120my", u8"\u0120friend", ",", u8"\u0120how", u8"\u0120is",
                   u8"\u0120your", u8"\u0120day", u8"\u0120going", "?"}));
  EXPECT_EQ(Split(ByteLevel(false), "Hello there\nHello there"),
            (Texts{"Hello", u8"\u0120there", u8"\u010A", "Hello", u8"\u0120there"}));
  EXPECT_EQ(
      Split(ByteLevel(false), "Hello there       dear"),
      (Texts{"Hello", u8"\u0120there", u8"\u0120\u0120\u0120\u0120\u0120\u0120", u8"\u0120dear"}));
  EXPECT_EQ(Split(ByteLevel(false), u8"i\u2B62j"), (Texts{"i", u8"\u00E2\u0143\u00A2", "j"}));
  // [js] contractions are lowercase only; numbers, letters and others apart;
  // trailing spaces.
  EXPECT_EQ(
      Split(ByteLevel(false), u8"I'm don't you've THEY'RE 2024 a\u00F1o \u4E2D\u6587!!  ok  "),
      (Texts{"I", "'m", u8"\u0120don", "'t", u8"\u0120you", "'ve", u8"\u0120THEY", "'", "RE",
             u8"\u01202024", u8"\u0120a\u00C3\u00B1o",
             u8"\u0120\u00E4\u00B8\u0143\u00E6\u0138\u0129", "!!", u8"\u0120", u8"\u0120ok",
             u8"\u0120\u0120"}));
}

TEST(PreTokenizersTest, ByteLevelPrefixSpaceAndNoRegex) {
  // [rust] byte_level.rs test add_prefix_space: with or without the space.
  const Texts want = {u8"\u0120Hello", u8"\u0120my", u8"\u0120friend", ",",
                      u8"\u0120how",   u8"\u0120is", u8"\u0120your",   u8"\u0120day",
                      u8"\u0120going", "?"};
  EXPECT_EQ(Split(ByteLevel(true), "Hello my friend, how is your day going?"), want);
  EXPECT_EQ(Split(ByteLevel(true), " Hello my friend, how is your day going?"), want);
  // [js] use_regex false: one piece, bytes mapped.
  EXPECT_EQ(Split(ByteLevel(false, false), u8"Hi there \u00E9"),
            Texts{u8"Hi\u0120there\u0120\u00C3\u00A9"});
  // [rust] the space goes before every piece it is given, not only the
  // first (byte_level.rs prepends inside pretokenized.split).
  EXPECT_EQ(Split(ByteLevel(true), Texts{"a", "b"}), (Texts{u8"\u0120a", u8"\u0120b"}));
}

TEST(PreTokenizersTest, ByteToUnicodeIsGpt2sTable) {
  // [rust] byte_level.rs bytes_char(): printable bytes stand for themselves,
  // the 68 others for U+0100.. in byte order (space is U+0120, \n U+010A).
  EXPECT_EQ(ByteToUnicode('!'), U'!');
  EXPECT_EQ(ByteToUnicode(0xA1), U'\u00A1');
  EXPECT_EQ(ByteToUnicode(0xAE), U'\u00AE');
  EXPECT_EQ(ByteToUnicode(0), U'\u0100');
  EXPECT_EQ(ByteToUnicode('\n'), U'\u010A');
  EXPECT_EQ(ByteToUnicode(' '), U'\u0120');
  EXPECT_EQ(ByteToUnicode(0x7F), U'\u0121');
  EXPECT_EQ(ByteToUnicode(0xAD), U'\u0143');
}

TEST(PreTokenizersTest, WhitespaceAndWhitespaceSplit) {
  // [rust] whitespace.rs tests basic and whitespace_split; [js] agrees.
  EXPECT_EQ(Split({{"type", "Whitespace"}}, "Hey man!"), (Texts{"Hey", "man", "!"}));
  EXPECT_EQ(Split({{"type", "Whitespace"}}, "How are you doing?"),
            (Texts{"How", "are", "you", "doing", "?"}));
  EXPECT_EQ(Split({{"type", "Whitespace"}}, "\n"), Texts{});
  EXPECT_EQ(Split({{"type", "Whitespace"}}, "a-b  c...d"), (Texts{"a", "-", "b", "c", "...", "d"}));
  // [rust] the regex crate's Unicode \w takes letters, marks and Nd digits
  // (é, a combining U+0301, Arabic-Indic ٣) but not No (²); the JS port's
  // ASCII \w would split these.
  EXPECT_EQ(Split({{"type", "Whitespace"}}, u8"caf\u00E9 cafe\u0301 \u0663\u0664 x\u00B2"),
            (Texts{u8"caf\u00E9", u8"cafe\u0301", u8"\u0663\u0664", "x", u8"\u00B2"}));
  EXPECT_EQ(Split({{"type", "WhitespaceSplit"}}, "Hey, man, Good?"),
            (Texts{"Hey,", "man,", "Good?"}));
  // [js]
  EXPECT_EQ(Split({{"type", "WhitespaceSplit"}}, u8"  a\u3000b\tc\n"), (Texts{"a", "b", "c"}));
}

TEST(PreTokenizersTest, PunctuationIsolatesEachCharacter) {
  // [rust] punctuation.rs test punctuation_basic (the JS port merges "?!?").
  EXPECT_EQ(Split({{"type", "Punctuation"}}, "Hey friend!     How are you?!?"),
            (Texts{"Hey friend", "!", "     How are you", "?", "!", "?"}));
  // [rust] with a behavior: the crate's split rules (normalizer.rs).
  EXPECT_EQ(Split({{"type", "Punctuation"}, {"behavior", "Contiguous"}}, "Hey!?! you."),
            (Texts{"Hey", "!?!", " you", "."}));
  EXPECT_EQ(Split({{"type", "Punctuation"}, {"behavior", "MergedWithPrevious"}}, "Hey!?! you."),
            (Texts{"Hey!", "?", "!", " you."}));
}

TEST(PreTokenizersTest, DigitsApartOrOneByOne) {
  // [rust] digits.rs tests numbers and individual_digits; [js] agrees.
  EXPECT_EQ(Split({{"type", "Digits"}, {"individual_digits", false}}, "Hey 123 friend!"),
            (Texts{"Hey ", "123", " friend!"}));
  EXPECT_EQ(Split({{"type", "Digits"}, {"individual_digits", true}}, "Hey 123 friend!"),
            (Texts{"Hey ", "1", "2", "3", " friend!"}));
  // [rust] char::is_numeric is any N*: Arabic-Indic digits (Nd), Ⅻ (Nl) and
  // ½ (No) too (the JS port's \d takes ASCII only).
  EXPECT_EQ(
      Split({{"type", "Digits"}, {"individual_digits", false}}, u8"a\u0663\u0664\u216B\u00BDb"),
      (Texts{"a", u8"\u0663\u0664\u216B\u00BD", "b"}));
}

json SplitSpec(json pattern, const char* behavior, bool invert) {
  return {{"type", "Split"}, {"pattern", pattern}, {"behavior", behavior}, {"invert", invert}};
}

TEST(PreTokenizersTest, SplitBehaviors) {
  // [rust] split.rs test basic: the Whitespace regex, inverted, on
  // "How are you doing?" with each behavior.
  const json words = {{"Regex", "\\w+|[^\\w\\s]+"}};
  const std::string s = "How are you doing?";
  EXPECT_EQ(Split(SplitSpec(words, "Removed", true), s),
            (Texts{"How", "are", "you", "doing", "?"}));
  EXPECT_EQ(Split(SplitSpec(words, "Isolated", true), s),
            (Texts{"How", " ", "are", " ", "you", " ", "doing", "?"}));
  EXPECT_EQ(Split(SplitSpec(words, "MergedWithPrevious", true), s),
            (Texts{"How ", "are ", "you ", "doing", "?"}));
  EXPECT_EQ(Split(SplitSpec(words, "MergedWithNext", true), s),
            (Texts{"How", " are", " you", " doing", "?"}));
  EXPECT_EQ(Split(SplitSpec(words, "Contiguous", true), s),
            (Texts{"How", " ", "are", " ", "you", " ", "doing?"}));
  // [rust] split.rs test regex_string: a String " " splits as the regex \s+.
  EXPECT_EQ(Split(SplitSpec({{"Regex", "\\s+"}}, "Removed", false), "Hey,  man!"),
            (Texts{"Hey,", "man!"}));
  EXPECT_EQ(Split(SplitSpec({{"String", " "}}, "Removed", false), "Hey, man!"),
            (Texts{"Hey,", "man!"}));
  // [rust] split.rs test invert: "Hello", inverted, removes what lies
  // between the Hellos, as splitting on " " does.
  EXPECT_EQ(Split(SplitSpec({{"String", "Hello"}}, "Removed", true), "Hello Hello Hello"),
            (Texts{"Hello", "Hello", "Hello"}));
  EXPECT_EQ(Split(SplitSpec({{"String", " "}}, "Removed", false), "Hello Hello Hello"),
            (Texts{"Hello", "Hello", "Hello"}));
  // [rust] normalizer.rs's doc of SplitDelimiterBehavior: splitting
  // "the-final--countdown" on '-'.
  const json dash = {{"String", "-"}};
  const std::string t = "the-final--countdown";
  EXPECT_EQ(Split(SplitSpec(dash, "Removed", false), t), (Texts{"the", "final", "countdown"}));
  EXPECT_EQ(Split(SplitSpec(dash, "Isolated", false), t),
            (Texts{"the", "-", "final", "-", "-", "countdown"}));
  EXPECT_EQ(Split(SplitSpec(dash, "MergedWithPrevious", false), t),
            (Texts{"the-", "final-", "-", "countdown"}));
  EXPECT_EQ(Split(SplitSpec(dash, "MergedWithNext", false), t),
            (Texts{"the", "-final", "-", "-countdown"}));
  EXPECT_EQ(Split(SplitSpec(dash, "Contiguous", false), t),
            (Texts{"the", "-", "final", "--", "countdown"}));
}

TEST(PreTokenizersTest, SplitWithLlama3sPattern) {
  // [js] Llama 3's pre-tokenizer pattern, Isolated: a case-insensitive
  // group, \p{N}{1,3}, \s+(?!\S).
  const json pattern = {{"Regex",
                         "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
                         "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}};
  EXPECT_EQ(
      Split(SplitSpec(pattern, "Isolated", false), u8"I'M here: 12345 caf\u00E9s\n\n  ok"),
      (Texts{"I", "'M", " here", ":", " ", "123", "45", u8" caf\u00E9s", "\n\n", " ", " ok"}));
}

TEST(PreTokenizersTest, SplitReadsOnigurumaClasses) {
  // [rust] Oniguruma's \s is White_Space: U+0085 is, U+180E is not (PCRE2's
  // own \s would take U+180E).
  EXPECT_EQ(Split(SplitSpec({{"Regex", "\\s"}}, "Removed", false), u8"a\u0085b\u180Ec"),
            (Texts{"a", u8"b\u180Ec"}));
  // [rust] Oniguruma's \h is a hexadecimal digit (PCRE2's: horizontal space).
  EXPECT_EQ(Split(SplitSpec({{"Regex", "\\h+"}}, "Isolated", false), "xy 0fA9 z"),
            (Texts{"xy ", "0fA9", " z"}));
  // [rust] Oniguruma's \w takes marks (PCRE2 10.42's does not).
  EXPECT_EQ(Split(SplitSpec({{"Regex", "\\w+"}}, "Removed", true), u8"cafe\u0301!"),
            Texts{u8"cafe\u0301"});
}

json Metaspace(const char* scheme, bool split) {
  return {{"type", "Metaspace"},
          {"replacement", u8"\u2581"},
          {"prepend_scheme", scheme},
          {"split", split}};
}

TEST(PreTokenizersTest, MetaspaceReplacesPrependsAndSplits) {
  // [rust] metaspace.rs tests basic and multiple_spaces (the JS port never
  // splits).
  EXPECT_EQ(Split(Metaspace("always", true), "Hey friend!"),
            (Texts{u8"\u2581Hey", u8"\u2581friend!"}));
  EXPECT_EQ(Split(Metaspace("always", true), "Hey   friend!"),
            (Texts{u8"\u2581Hey", u8"\u2581", u8"\u2581", u8"\u2581friend!"}));
  // [rust] metaspace.rs test non_legacy_meta_space: "first" prepends only to
  // the piece at the start of the text; added tokens cut the text first.
  const Texts pieces = {"Hey my friend ", "<s>", u8"how\u2581are you"};
  EXPECT_EQ(Split(Metaspace("first", false), pieces),
            (Texts{u8"\u2581Hey\u2581my\u2581friend\u2581", "<s>", u8"how\u2581are\u2581you"}));
  EXPECT_EQ(Split(Metaspace("always", true),
                  Texts{u8"\u2581Hey\u2581my\u2581friend\u2581", "<s>", u8"how\u2581are\u2581you"}),
            (Texts{u8"\u2581Hey", u8"\u2581my", u8"\u2581friend", u8"\u2581", u8"\u2581<s>",
                   u8"\u2581how", u8"\u2581are", u8"\u2581you"}));
  EXPECT_EQ(Split(Metaspace("first", false), Texts{" Hey ", "<s>", "how"}),
            (Texts{u8"\u2581Hey\u2581", "<s>", "how"}));
  // [rust] never: no prefix at all.
  EXPECT_EQ(Split(Metaspace("never", true), "Hey friend"), (Texts{"Hey", u8"\u2581friend"}));
}

TEST(PreTokenizersTest, MetaspaceReadsTheLegacyPrefixFlag) {
  // [rust] metaspace.rs serialization test and mod.rs test_deserialize:
  // add_prefix_space true alone means always; false means never.
  const json legacy = {
      {"type", "Metaspace"}, {"replacement", u8"\u2581"}, {"add_prefix_space", true}};
  EXPECT_EQ(Split(legacy, "Hey friend"), (Texts{u8"\u2581Hey", u8"\u2581friend"}));
  const json never = {{"type", "Metaspace"}, {"replacement", "_"}, {"add_prefix_space", false}};
  EXPECT_EQ(Split(never, "Hey friend"), (Texts{"Hey", "_friend"}));
  // [rust] add_prefix_space false against prepend_scheme always is refused.
  const std::string e = ErrorOf([] {
    MakePreTokenizer({{"type", "Metaspace"},
                      {"replacement", "_"},
                      {"add_prefix_space", false},
                      {"prepend_scheme", "always"}},
                     "tokenizer.json: pre_tokenizer");
  });
  EXPECT_NE(e.find("tokenizer.json: pre_tokenizer.add_prefix_space: false does not match "
                   "prepend_scheme \"always\""),
            std::string::npos)
      << e;
}

TEST(PreTokenizersTest, SequenceRunsInOrder) {
  // [rust] the T5 layout: WhitespaceSplit then Metaspace.
  const json seq = {
      {"type", "Sequence"},
      {"pretokenizers",
       {{{"type", "WhitespaceSplit"}},
        {{"type", "Metaspace"}, {"replacement", u8"\u2581"}, {"add_prefix_space", true}}}}};
  EXPECT_EQ(Split(seq, "  Hey   friend! "), (Texts{u8"\u2581Hey", u8"\u2581friend!"}));
}

TEST(PreTokenizersTest, SplitIsSafeOnManyThreads) {
  // One compiled pattern, its match data per call: the same pieces on every
  // thread (under the sanitizers, no race either).
  auto split = MakePreTokenizer(SplitSpec({{"Regex", "\\p{L}+|\\p{N}+|\\s+"}}, "Isolated", false),
                                "pre_tokenizer");
  const std::string text = "abc 123 def 456 ghi";
  std::vector<Texts> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 200; ++k) {
        Pieces pieces;
        pieces.Reset(text, true, nullptr);
        split->Split(pieces);
        Texts out;
        for (size_t i = 0; i < pieces.size(); ++i) out.emplace_back(pieces.text(i));
        got[t] = out;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (const Texts& g : got)
    EXPECT_EQ(g, (Texts{"abc", " ", "123", " ", "def", " ", "456", " ", "ghi"}));
}

TEST(PreTokenizersTest, ErrorsNameTheFieldAndWhatIsRead) {
  const std::string where = "tokenizer.json: pre_tokenizer";
  auto error = [&](const json& spec) { return ErrorOf([&] { MakePreTokenizer(spec, where); }); };
  const std::string unknown = error(
      {{"type", "Sequence"}, {"pretokenizers", {{{"type", "Whitespace"}}, {{"type", "Bar"}}}}});
  EXPECT_NE(unknown.find("tokenizer.json: pre_tokenizer.pretokenizers[1].type: \"Bar\" is not a "
                         "pre-tokenizer phasor reads (it reads BertPreTokenizer, ByteLevel"),
            std::string::npos)
      << unknown;
  const std::string regex = error(SplitSpec({{"Regex", "[a-"}}, "Isolated", false));
  EXPECT_NE(regex.find("tokenizer.json: pre_tokenizer.pattern.Regex: the pattern \"[a-\" does not "
                       "compile"),
            std::string::npos)
      << regex;
  EXPECT_NE(error(SplitSpec({{"Regex", "a"}}, "Dropped", false))
                .find("pre_tokenizer.behavior: \"Dropped\" is not a split behavior"),
            std::string::npos);
  EXPECT_EQ(error({{"type", "Digits"}, {"individual_digits", 1}}),
            "tokenizer.json: pre_tokenizer.individual_digits: expected true or false, got 1");
  EXPECT_EQ(error({{"type", "ByteLevel"}, {"trim_offsets", true}}),
            "tokenizer.json: pre_tokenizer.add_prefix_space: missing (it is required)");
  EXPECT_EQ(error({{"type", "Metaspace"}, {"replacement", "ab"}}),
            "tokenizer.json: pre_tokenizer.replacement: expected a string of one character, got "
            "\"ab\"");
  EXPECT_NE(error({{"type", "Metaspace"}, {"replacement", "_"}, {"prepend_scheme", "sometimes"}})
                .find("pre_tokenizer.prepend_scheme: \"sometimes\" is not a prepend scheme"),
            std::string::npos);
}

}  // namespace
}  // namespace phasor::tokenizers

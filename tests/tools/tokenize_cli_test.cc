// `phasor tokenize` and `phasor encode --text-file` run as a user runs them, on
// a small BERT-style tokenizer.json whose ids each test works out by hand from
// Hugging Face's rules (lowercase and accents stripped, punctuation split off,
// greedy longest-first WordPiece, [CLS] A [SEP] B [SEP]).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/paths.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

using testing::ReadFile;
using testing::RunPhasor;
using testing::WriteFile;

// tests/data/tokenizers/hand/tokenizer.json, ids: [PAD] 0, [UNK] 1, [CLS] 2,
// [SEP] 3, [MASK] 4, hello 5, world 6, ##s 7, un 8, ##able 9, "," 10, "!" 11,
// the 12, caf 13, ##e 14; BertNormalizer (lowercase, accents stripped),
// BertPreTokenizer, WordPiece, [CLS] A [SEP] B [SEP] with B of type 1.
const std::string kTokenizerJson =
    ReadFile(std::string(phasor::testing::kTestDataDir) + "/tokenizers/hand/tokenizer.json");

// A folder with only the tokenizer's files.
std::string TokenizerFolder(const std::string& name, const std::string& config = "") {
  const std::string dir = ::testing::TempDir() + "tokenize_cli_" + name;
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  WriteFile(dir + "/tokenizer.json", kTokenizerJson);
  if (!config.empty()) WriteFile(dir + "/tokenizer_config.json", config);
  return dir;
}

std::string TextFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "tokenize_cli_" + name + ".txt";
  WriteFile(path, text);
  return path;
}

// --json counts what was read and written, and gives the load and the
// tokenizing apart from the whole run's time.
TEST(TokenizeCliTest, JsonCountsLinesIdsBytesAndTheLoadApart) {
  const std::string dir = TokenizerFolder("json");
  const std::string text = TextFile("json", "Hello, worlds!\nthe hello\n");
  const std::string out = ::testing::TempDir() + "tokenize_cli_json_ids.txt";
  const auto r = RunPhasor("tokenize --model " + dir + " --text-file " + text + " --output " + out +
                           " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("lines"), 2);
  EXPECT_EQ(j.at("tokens"), 11);  // 2 5 10 6 7 11 3 and 2 12 5 3
  EXPECT_EQ(j.at("bytes"), 25);
  const double load = j.at("load_seconds"), work = j.at("tokenize_seconds"), all = j.at("seconds");
  EXPECT_GT(load, 0);
  EXPECT_GT(work, 0);
  EXPECT_LE(load + work, all);
  EXPECT_EQ(ReadFile(out), "2 5 10 6 7 11 3\n2 12 5 3\n");
}

TEST(TokenizeCliTest, OneLineOfIdsPerLineAsHuggingFaceGivesThem) {
  const std::string dir = TokenizerFolder("lines");
  const std::string text = TextFile("lines",
                                    "Hello, worlds!\n"
                                    "\n"
                                    "unable Café\n"
                                    "zzz\n"
                                    "   \n"
                                    "the [MASK] hello\n"
                                    "HELLO\tWORLD\n");
  const auto r = RunPhasor("tokenize --model " + dir + " --text-file " + text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "2 5 10 6 7 11 3\n"  // hello , world ##s !
            "2 3\n"              // an empty line is a text too
            "2 8 9 13 14 3\n"    // un ##able caf ##e: accents go with lowercase
            "2 1 3\n"            // no piece splits "zzz"
            "2 3\n"              // spaces only
            "2 12 4 5 3\n"       // [MASK] matched in the raw text
            "2 5 6 3\n");        // a tab is white space in a single text
}

// Spans worked out by hand: "ü" and "é" are one code point and two bytes
// each; BertNormalizer's accent stripping keeps "u" on the span of "ü".
TEST(TokenizeCliTest, OffsetsAreJsonLinesInCodePointsOrBytes) {
  const std::string dir = TokenizerFolder("offsets");
  const std::string text = TextFile("offsets", "ünable café\n\n");
  auto r = RunPhasor("tokenize --offsets --model " + dir + " --text-file " + text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"ids\": [2, 8, 9, 13, 14, 3], \"offsets\": [[0, 0], [0, 2], [2, 6], [7, 10], "
            "[10, 11], [0, 0]], \"special\": [1, 0, 0, 0, 0, 1]}\n"
            "{\"ids\": [2, 3], \"offsets\": [[0, 0], [0, 0]], \"special\": [1, 1]}\n");
  r = RunPhasor("tokenize --byte-offsets --no-special --model " + dir + " --text-file " + text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"ids\": [8, 9, 13, 14], \"offsets\": [[0, 3], [3, 7], [8, 11], [11, 13]], "
            "\"special\": [0, 0, 0, 0]}\n"
            "{\"ids\": [], \"offsets\": [], \"special\": []}\n");
  const std::string pair = TextFile("offsets_pair", "hello\té world\n");
  r = RunPhasor("tokenize --offsets --pairs --model " + dir + " --text-file " + pair);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"ids\": [2, 5, 3, 1, 6, 3], \"offsets\": [[0, 0], [0, 5], [0, 0], [0, 1], [2, 7], "
            "[0, 0]], \"special\": [1, 0, 1, 0, 0, 1], \"pair_start\": 3}\n");
  r = RunPhasor("tokenize --offsets --byte-offsets --model " + dir + " --text-file " + text);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "phasor: error: --offsets and --byte-offsets do not go together: give one\n");
}

TEST(TokenizeCliTest, PairsPutATabWhereTheSecondTextBegins) {
  const std::string dir = TokenizerFolder("pairs");
  const std::string text = TextFile("pairs", "hello\tworld\n\tthe\n");
  auto r = RunPhasor("tokenize --pairs --model " + dir + " --text-file " + text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 5 3\t6 3\n2 3\t12 3\n");
  r = RunPhasor("tokenize --pairs --no-special --model " + dir + " --text-file " + text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "5\t6\n\t12\n");
}

TEST(TokenizeCliTest, TruncationKeepsTheSpecialTokens) {
  const std::string dir = TokenizerFolder("truncate", R"({"model_max_length": 5})");
  const std::string text = TextFile("truncate", "Hello, worlds!\n");
  auto r = RunPhasor("tokenize --max-length 4 --model " + dir + " --text-file " + text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 5 10 3\n");
  r = RunPhasor("tokenize --truncate --model " + dir + " --text-file " + text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 5 10 6 3\n");
  // A pair, longest first: a has 1 id, b 5; 6 = 1 + 2 + 3 special tokens.
  const std::string pair = TextFile("truncate_pair", "hello\tworlds worlds!\n");
  r = RunPhasor("tokenize --pairs --max-length 6 --model " + dir + " --text-file " + pair);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 5 3\t6 7 3\n");
  // Without model_max_length, --truncate has nothing to cut to.
  const std::string bare = TokenizerFolder("truncate_bare");
  r = RunPhasor("tokenize --truncate --model " + bare + " --text-file " + text);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--max-length"), std::string::npos) << r.err;
}

// transformers writes model_max_length 1e30 for "no limit": --truncate then cuts at
// the model's positions, in tokenize as in encode, and without a model asks
// for --max-length.
TEST(TokenizeCliTest, NoLimitMeansTheModelsPositions) {
  const std::string dir = ::testing::TempDir() + "tokenize_cli_no_limit";
  auto r = RunPhasor("make-toy --force --out " + dir +
                     " --vocab 20 --d-model 16 --n-heads 2 --n-layers 1 --d-ff 32");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  WriteFile(dir + "/tokenizer.json", kTokenizerJson);
  WriteFile(dir + "/tokenizer_config.json",
            R"({"model_max_length": 1000000000000000019884624838656})");
  const std::string text = TextFile("no_limit", "Hello, worlds!\n");
  r = RunPhasor("tokenize --truncate --model " + dir + " --text-file " + text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 5 10 6 7 11 3\n");
  r = RunPhasor("encode --truncate --model " + dir + " --text-file " + text + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"real_tokens\":7"), std::string::npos) << r.out;
  const std::string bare = TokenizerFolder("no_limit_bare", R"({"model_max_length": 1e30})");
  r = RunPhasor("tokenize --truncate --model " + bare + " --text-file " + text);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("1e30 means none"), std::string::npos) << r.err;
}

TEST(TokenizeCliTest, PromptsAndPrefixesComeBeforeEachText) {
  const std::string dir = TokenizerFolder("prompt");
  WriteFile(dir + "/config_sentence_transformers.json",
            R"({"prompts": {"query": "the ", "passage": ""}})");
  const std::string text = TextFile("prompt", "hello\n");
  auto r = RunPhasor("tokenize --prefix 'the ' --model " + dir + " --text-file " + text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 12 5 3\n");
  r = RunPhasor("tokenize --prompt query --model " + dir + " --text-file " + text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 12 5 3\n");
  r = RunPhasor("tokenize --prompt doc --model " + dir + " --text-file " + text);
  EXPECT_EQ(r.exit_code, 1);
  testing::ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("no prompt \"doc\" (it has passage, query)"), std::string::npos) << r.err;
}

TEST(TokenizeCliTest, CrlfLinesReadAsTheirLfTwins) {
  const std::string dir = TokenizerFolder("crlf");
  const auto r =
      RunPhasor("tokenize --model " + dir + " --text-file " + TextFile("crlf", "hello\r\nworld"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 5 3\n2 6 3\n");
}

TEST(TokenizeCliTest, InvalidUtf8IsNamedAndNothingIsWritten) {
  const std::string dir = TokenizerFolder("utf8");
  const std::string text = TextFile("utf8", "hello\nhel\xfflo\n");
  const std::string out = ::testing::TempDir() + "tokenize_cli_utf8.ids";
  WriteFile(out, "earlier\n");
  auto r = RunPhasor("tokenize --model " + dir + " --text-file " + text + " --output " + out);
  EXPECT_EQ(r.exit_code, 1);
  testing::ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find(text + ": line 2, byte offset 3: invalid UTF-8 (byte 0xff)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(ReadFile(out), "earlier\n");
  // replace: U+FFFD, which BertNormalizer's clean_text removes.
  r = RunPhasor("tokenize --invalid-utf8 replace --model " + dir + " --text-file " + text +
                " --output " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(out), "2 5 3\n2 5 3\n");
}

TEST(TokenizeCliTest, BadInputIsOneLineNamingIt) {
  const std::string dir = TokenizerFolder("bad");
  const std::string text = TextFile("bad", "hello\n");
  const std::string pairs = TextFile("bad_pairs", "hello\nhello\tworld\tagain\n");
  struct Case {
    std::string args;
    int exit_code;
    std::string fragment;
  } cases[] = {
      {"tokenize --model " + dir + " --text-file /nonexistent.txt", 1, "/nonexistent.txt"},
      {"tokenize --model /nonexistent --text-file " + text, 1,
       "no such folder '/nonexistent'; phasor reads a local folder"},
      {"tokenize --model " + text + " --text-file " + text, 1, text + ": is not a folder"},
      {"tokenize --model " + ::testing::TempDir() + " --text-file " + text, 1,
       "holds no tokenizer"},
      {"tokenize --pairs --model " + dir + " --text-file " + pairs, 1,
       "line 1: expected text_a<TAB>text_b, found no tab"},
      {"tokenize --model " + dir + " --text-file " + text + " --invalid-utf8 maybe", 2,
       "--invalid-utf8 must be 'error' or 'replace'"},
      {"tokenize --model " + dir + " --text-file " + text + " --prompt q --prefix x", 2,
       "--prompt and --prefix"},
      {"tokenize --model " + dir + " --text-file " + text + " --output " + text, 2, "--output"},
      {"tokenize --model " + dir + " --text-file " + text + " --json", 2, "--json needs --output"},
  };
  for (const Case& c : cases) {
    const auto r = RunPhasor(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.err;
    testing::ExpectOneErrorLine(r);
    EXPECT_NE(r.err.find(c.fragment), std::string::npos) << c.args << "\n" << r.err;
  }
  // A broken tokenizer.json names the file.
  const std::string broken = TokenizerFolder("broken");
  WriteFile(broken + "/tokenizer.json", "{\"model\": ");
  const auto r = RunPhasor("tokenize --model " + broken + " --text-file " + text);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(broken + "/tokenizer.json: not valid JSON"), std::string::npos) << r.err;
}

// The folder's small JSON files are read by one rule (engine/model_folder.h):
// a value that was once read as "no limit" and a prompt whose file is missing
// are each one line naming the file.
TEST(TokenizeCliTest, FolderFilesThatCannotServeAreOneLineNamingThem) {
  const std::string text = TextFile("folder_files", "hello\n");
  for (const std::string value : {"\"512\"", "0", "-3", "true"}) {
    const std::string dir = TokenizerFolder("max_length", "{\"model_max_length\": " + value + "}");
    const auto r = RunPhasor("tokenize --truncate --model " + dir + " --text-file " + text);
    EXPECT_EQ(r.exit_code, 1) << value;
    EXPECT_EQ(r.err, "phasor: error: " + dir +
                         "/tokenizer_config.json: key 'model_max_length': expected a number of "
                         "at least 1 (1e30 for no bound), found " +
                         value + "\n");
  }
  const std::string dir = TokenizerFolder("no_prompts");
  const auto r = RunPhasor("tokenize --prompt query --model " + dir + " --text-file " + text);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "phasor: error: " + dir +
                       "/config_sentence_transformers.json: no such file (a prompt is read from "
                       "its \"prompts\")\n");
}

// encode --text-file is tokenize, then encode --tokens-file, bit for bit.
TEST(TokenizeCliTest, EncodeTextFileEqualsTokenizeThenEncode) {
  const std::string dir = ::testing::TempDir() + "tokenize_cli_model";
  auto r = RunPhasor("make-toy --force --out " + dir +
                     " --vocab 20 --d-model 16 --n-heads 2 --n-layers 1 --d-ff 32");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  WriteFile(dir + "/tokenizer.json", kTokenizerJson);
  const std::string text = TextFile("encode", "Hello, worlds!\n\nunable Café\nzzz\n");
  const std::string ids = ::testing::TempDir() + "tokenize_cli_encode.ids";
  r = RunPhasor("tokenize --model " + dir + " --text-file " + text + " --output " + ids);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const std::string pool : {"none", "mean"}) {
    const std::string a = ::testing::TempDir() + "tokenize_cli_a.npy";
    const std::string b = ::testing::TempDir() + "tokenize_cli_b.npy";
    r = RunPhasor("encode --model " + dir + " --pool " + pool + " --tokens-file " + ids +
                  " --output " + a);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = RunPhasor("encode --model " + dir + " --pool " + pool + " --text-file " + text +
                  " --output " + b + " --batch-tokens 7");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(ReadFile(a), ReadFile(b)) << pool;
  }
  // A model folder without a tokenizer: its name and what it lacks.
  const std::string bare = ::testing::TempDir() + "tokenize_cli_bare";
  r = RunPhasor("make-toy --force --out " + bare + " --vocab 20 --d-model 16 --n-heads 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunPhasor("encode --model " + bare + " --text-file " + text);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("holds no tokenizer"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace phasor

// A sentence-transformers folder on the command line, as sentence-transformers
// reads it: text cut at the folder's length rule by default (models/length_rule.h),
// pooled as modules.json says, --json saying what was applied; and the words
// for a model path that is not a folder. Expected ids are worked out by hand
// from the hand tokenizer (tests/support/st_folder.h).
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/npy.h"
#include "tests/support/run.h"
#include "tests/support/st_folder.h"

namespace phasor {
namespace {

using testing::ExpectOneErrorLine;
using testing::MakeStFolder;
using testing::ReadFile;
using testing::RunPhasor;
using testing::WriteFile;

std::string TextFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "st_cli_" + name;
  WriteFile(path, text);
  return path;
}

// "hello" n times: [CLS] + n + [SEP] ids.
std::string Hellos(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += i ? " hello" : "hello";
  return s;
}

TEST(SentenceFolderCliTest, TokenizeCutsAtMaxSeqLengthByDefault) {
  const std::string dir = MakeStFolder("tok_default", 5);
  const std::string text = TextFile("tok_default.txt", "Hello, worlds!\nhello\n");
  auto r = RunPhasor("tokenize --model " + dir + " --text-file " + text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 2 5 10 6 7 11 3 cut to 5, [SEP] kept.
  EXPECT_EQ(r.out, "2 5 10 6 3\n2 5 3\n");
  r = RunPhasor("tokenize --truncate --model " + dir + " --text-file " + text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 5 10 6 3\n2 5 3\n");
  r = RunPhasor("tokenize --no-truncate --model " + dir + " --text-file " + text);
  EXPECT_EQ(r.exit_code, 1);
  ExpectOneErrorLine(r);
  EXPECT_NE(
      r.err.find(text + ": line 1 has 7 tokens, more than the 5 of max_seq_length 5 of " + dir +
                 "/sentence_bert_config.json; give --truncate to cut it to its "
                 "first 5"),
      std::string::npos)
      << r.err;
  r = RunPhasor("tokenize --truncate --no-truncate --model " + dir + " --text-file " + text);
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("--truncate and --no-truncate do not go together"), std::string::npos);
  r = RunPhasor("encode --truncate --no-truncate --model " + dir + " --text-file " + text);
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneErrorLine(r);
  r = RunPhasor("tokenize --max-length 3 --no-truncate --model " + dir + " --text-file " + text);
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneErrorLine(r);
  // --max-length cuts at its own number, below or above the folder's.
  r = RunPhasor("tokenize --max-length 3 --model " + dir + " --text-file " + text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 5 3\n2 5 3\n");
  r = RunPhasor("tokenize --max-length 6 --model " + dir + " --text-file " + text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 5 10 6 7 3\n2 5 3\n");
}

TEST(SentenceFolderCliTest, OtherFoldersRefuseALongerTextUnlessTruncate) {
  const std::string dir = MakeStFolder("tok_plain", 0, false);
  WriteFile(dir + "/tokenizer_config.json", R"({"model_max_length": 5})");
  const std::string text = TextFile("tok_plain.txt", "hello\nHello, worlds!\n");
  auto r = RunPhasor("tokenize --model " + dir + " --text-file " + text);
  EXPECT_EQ(r.exit_code, 1);
  ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find(text + ": line 2 has 7 tokens, more than the 5 of model_max_length 5 of " +
                       dir + "/tokenizer_config.json"),
            std::string::npos)
      << r.err;
  r = RunPhasor("tokenize --truncate --model " + dir + " --text-file " + text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 5 3\n2 5 10 6 3\n");
}

// The limit that cuts text, the one its error names and the one --json
// reports are the rule's (32, max_seq_length) and not the model's 40 positions.
TEST(SentenceFolderCliTest, EncodeTextUsesOneLimitForCutAndCheck) {
  const std::string dir = MakeStFolder("enc_limit", 32);
  const std::string text = TextFile("enc_limit.txt", Hellos(33) + "\n");  // 35 ids
  auto r = RunPhasor("encode --no-truncate --model " + dir + " --text-file " + text);
  EXPECT_EQ(r.exit_code, 1);
  ExpectOneErrorLine(r);
  EXPECT_NE(
      r.err.find(text + ": line 1 has 35 tokens, more than the 32 of max_seq_length 32 of " + dir +
                 "/sentence_bert_config.json; give --truncate to cut it to its "
                 "first 32"),
      std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("40"), std::string::npos) << r.err;
  // By default it is cut to 32: [CLS], 30 hellos, [SEP].
  const std::string got = ::testing::TempDir() + "st_cli_enc_limit.npy";
  r = RunPhasor("encode --json --model " + dir + " --text-file " + text + " --output " + got);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["truncate"], true);
  EXPECT_EQ(j["max_length"], 32);
  EXPECT_EQ(j["max_length_of"], "max_seq_length 32 of " + dir + "/sentence_bert_config.json");
  EXPECT_EQ(j["real_tokens"], 32);
  std::string ids = "2";
  for (int i = 0; i < 30; ++i) ids += " 5";
  const std::string want = ::testing::TempDir() + "st_cli_enc_limit_ids.npy";
  r = RunPhasor("encode --model " + dir + " --tokens '" + ids + " 3' --output " + want);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(got), ReadFile(want));
}

// Token ids are not text: their limit stays the model's positions.
TEST(SentenceFolderCliTest, TokenIdsKeepTheModelsPositions) {
  const std::string dir = MakeStFolder("ids_limit", 5);
  auto r = RunPhasor("encode --json --model " + dir + " --tokens '2 5 5 5 5 5 3'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["real_tokens"], 7);
  EXPECT_EQ(j["max_length"], 40);
  EXPECT_EQ(j["truncate"], false);
}

TEST(SentenceFolderCliTest, EncodePoolsAsTheFolderSaysAndJsonSaysSo) {
  const std::string dir = MakeStFolder("pool", 32);
  const std::string pooled = ::testing::TempDir() + "st_cli_pool.npy";
  auto r = RunPhasor("encode --json --model " + dir + " --tokens '2 5 6 3' --output " + pooled);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["pool"], "mean");
  EXPECT_EQ(j["pool_option"], "model");
  EXPECT_EQ(j["normalize"], true);  // the folder's Normalize module
  EXPECT_EQ(j["layout"], "pooled");
  EXPECT_EQ(ReadNpy(pooled).shape, (std::vector<int64_t>{1, 32}));
  // The same as asking for mean and unit norm by hand.
  const std::string hand = ::testing::TempDir() + "st_cli_pool_hand.npy";
  r = RunPhasor("encode --pool mean --normalize --model " + dir + " --tokens '2 5 6 3' --output " +
                hand);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(pooled), ReadFile(hand));
  // Other stages and layouts, and other folders, keep every row.
  const std::string rows = ::testing::TempDir() + "st_cli_rows.npy";
  for (const char* args : {"--stage embeddings", "--layout packed", "--pool none"}) {
    r = RunPhasor(std::string("encode --json ") + args + " --model " + dir +
                  " --tokens '2 5 6 3' --output " + rows);
    ASSERT_EQ(r.exit_code, 0) << args << ": " << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["pool"], "none") << args;
    EXPECT_EQ(ReadNpy(rows).data.size(), 4u * 32) << args;
  }
  const std::string plain = MakeStFolder("pool_plain", 32, false);
  r = RunPhasor("encode --json --model " + plain + " --tokens '2 5 6 3' --output " + rows);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["pool"], "none");
  EXPECT_EQ(ReadNpy(rows).shape, (std::vector<int64_t>{1, 4, 32}));
}

TEST(SentenceFolderCliTest, AHubIdIsToldToDownloadTheFolder) {
  const std::string id = "sentence-transformers/all-MiniLM-L6-v2";
  const std::string want =
      "phasor: error: no such folder '" + id +
      "'; phasor reads a local folder: download it first, e.g. with huggingface-cli download " +
      id + " --local-dir DIR\n";
  const std::string text = TextFile("hub.txt", "hello\n");
  for (const std::string& args :
       {"encode --model " + id + " --tokens 1", "encode --model " + id + " --tokens 1 --pool model",
        "encode --model " + id + " --text-file " + text,
        "tokenize --model " + id + " --text-file " + text}) {
    const auto r = RunPhasor(args);
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_EQ(r.err, want) << args;
  }
}

TEST(SentenceFolderCliTest, EncodeUsageLineListsEveryOptionAndPool) {
  const auto r = RunPhasor("encode --help");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t begin = r.out.find("Usage: phasor encode ");
  ASSERT_NE(begin, std::string::npos) << r.out;
  const std::string usage = r.out.substr(begin, r.out.find('\n', begin) - begin);
  // Every option the help describes below the usage line.
  size_t options = 0;
  for (size_t at = r.out.find("\n  --"); at != std::string::npos;
       at = r.out.find("\n  --", at + 1)) {
    const size_t end = r.out.find_first_of(" ,\n", at + 3);
    const std::string name = r.out.substr(at + 3, end - at - 3);
    if (name == "--help") continue;
    ++options;
    // The name whole: "--truncate" in "[--truncate | ...", not in "--truncated".
    bool found = false;
    for (size_t k = usage.find(name); k != std::string::npos && !found;
         k = usage.find(name, k + 1)) {
      const char next = k + name.size() < usage.size() ? usage[k + name.size()] : ' ';
      found = !std::isalnum(static_cast<unsigned char>(next)) && next != '-' && next != '_';
    }
    EXPECT_TRUE(found) << name << " not in: " << usage;
  }
  EXPECT_GE(options, 25u);
  EXPECT_NE(usage.find("none|mean|cls|max|last|mean_sqrt_len|model"), std::string::npos) << usage;
  const auto bad = RunPhasor("encode --pool avg --tokens 1");
  EXPECT_EQ(bad.exit_code, 2);
  ExpectOneErrorLine(bad);
  EXPECT_NE(bad.err.find("none, mean, cls, max, last, mean_sqrt_len or model, got 'avg'"),
            std::string::npos)
      << bad.err;
  EXPECT_NE(r.out.find("the least of"), std::string::npos);
}

// One row a line (pooled, a head) may go to .csv: the same float32 values as
// the .npy, read back exactly; every row (hidden states) is .npy only.
TEST(SentenceFolderCliTest, EncodeWritesCsvForOneRowALineOnly) {
  const std::string dir = MakeStFolder("csv_out", 32);
  const std::string npy = ::testing::TempDir() + "st_cli_out.npy";
  const std::string csv = ::testing::TempDir() + "st_cli_out.csv";
  const std::string ids = " --tokens-file " + ::testing::TempDir() + "st_cli_csv_ids.txt";
  WriteFile(::testing::TempDir() + "st_cli_csv_ids.txt", "2 5 6 3\n2 12 3\n2 5 10 6 7 11 3\n");
  auto r = RunPhasor("encode --model " + dir + ids + " --output " + npy);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunPhasor("encode --model " + dir + ids + " --output " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const NpyArray want = ReadNpy(npy);
  ASSERT_EQ(want.shape, (std::vector<int64_t>{3, 32}));
  const std::string text = ReadFile(csv);
  size_t at = 0, lines = 0;
  for (int64_t b = 0; b < 3; ++b, ++lines) {
    for (int64_t k = 0; k < 32; ++k) {
      const size_t end = text.find(k + 1 < 32 ? ',' : '\n', at);
      ASSERT_NE(end, std::string::npos) << "row " << b << ", value " << k;
      const float got = std::strtof(text.substr(at, end - at).c_str(), nullptr);
      EXPECT_EQ(got, want.data[static_cast<size_t>(b * 32 + k)]) << b << ", " << k;
      at = end + 1;
    }
  }
  EXPECT_EQ(at, text.size());
  r = RunPhasor("encode --pool none --model " + dir + ids + " --output " + csv);
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("--output must end in .npy, got '" + csv + "': encode writes .npy"),
            std::string::npos)
      << r.err;
  r = RunPhasor("encode --model " + dir + ids + " --output " + ::testing::TempDir() + "x.txt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--output must end in .npy or .csv"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace phasor

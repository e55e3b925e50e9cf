// `phasor encode` and `phasor make-toy` run as a user runs them, including
// every class of bad model file and bad token input.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>

#include "engine/npy.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

using testing::ReadFile;
using testing::RunPhasor;
using testing::WriteFile;

// A small model directory written by make-toy; each test gets a fresh copy.
std::string MakeSmallModel(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "encode_cli_" + name;
  const auto r = RunPhasor("make-toy --force --out " + dir +
                           " --vocab 20 --d-model 16 --n-heads 2 --n-layers 1 --d-ff 32");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir;
}

// A safetensors file from a header and a data section.
std::string Safetensors(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  const uint64_t n = header.size();
  for (int k = 0; k < 8; ++k) out[k] = static_cast<char>((n >> (8 * k)) & 0xff);
  return out + header + data;
}

void ExpectDataError(const std::string& args, const std::string& fragment) {
  const auto r = RunPhasor(args);
  EXPECT_EQ(r.exit_code, 1) << args << ": " << r.err;
  testing::ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find(fragment), std::string::npos) << args << ": " << r.err;
}

TEST(EncodeCliTest, ToyModelSummaryAndOutput) {
  const std::string out = ::testing::TempDir() + "encode_cli_out.npy";
  const auto r = RunPhasor("encode --tokens \"3 14 15 92 65\" --output " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* word : {"toy", "d_model 256", "tokens/s", "PE mode auto"}) {
    EXPECT_NE(r.out.find(word), std::string::npos) << word << " in " << r.out;
  }
  EXPECT_EQ(ReadNpy(out).shape, (std::vector<int64_t>{1, 5, 256}));
}

TEST(EncodeCliTest, JsonAndStages) {
  const auto r = RunPhasor("encode --tokens \"1 2 3\" --stage embeddings --repeat 3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"batch", "seq_len", "d_model", "seconds", "tokens_per_s"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["batch"], 1);
  EXPECT_EQ(j["seq_len"], 3);
  EXPECT_EQ(j["d_model"], 256);
}

// make-toy writes the built-in model: reading it back gives the same bits.
TEST(EncodeCliTest, MakeToyRoundTripsToTheSameOutput) {
  const std::string dir = ::testing::TempDir() + "encode_cli_toy";
  ASSERT_EQ(RunPhasor("make-toy --force --out " + dir).exit_code, 0);
  const std::string a = ::testing::TempDir() + "toy_a.npy", b = ::testing::TempDir() + "toy_b.npy";
  ASSERT_EQ(RunPhasor("encode --tokens \"3 14 15 92 65\" --output " + a).exit_code, 0);
  ASSERT_EQ(
      RunPhasor("encode --model " + dir + " --tokens \"3 14 15 92 65\" --output " + b).exit_code,
      0);
  EXPECT_EQ(ReadFile(a), ReadFile(b));
}

// A tokens file with ragged lines: padded, masked, and each sequence's real
// tokens equal to running that sequence alone.
TEST(EncodeCliTest, RaggedTokensFileMatchesSequencesAlone) {
  const std::string file = ::testing::TempDir() + "ragged.txt";
  WriteFile(file, "5 6 7 8 9\n10, 11\n\n12 13 14\n");
  const std::string all = ::testing::TempDir() + "ragged_all.npy";
  ASSERT_EQ(RunPhasor("encode --tokens-file " + file + " --output " + all).exit_code, 0);
  const NpyArray batch = ReadNpy(all);
  ASSERT_EQ(batch.shape, (std::vector<int64_t>{3, 5, 256}));
  const char* lines[3] = {"5 6 7 8 9", "10 11", "12 13 14"};
  for (int b = 0; b < 3; ++b) {
    const std::string one = ::testing::TempDir() + "ragged_one.npy";
    ASSERT_EQ(
        RunPhasor(std::string("encode --tokens \"") + lines[b] + "\" --output " + one).exit_code,
        0);
    const NpyArray alone = ReadNpy(one);
    for (size_t k = 0; k < alone.data.size(); ++k) {
      ASSERT_NEAR(batch.data[b * 5 * 256 + k], alone.data[k], 1e-5) << "sequence " << b;
    }
    for (size_t k = alone.data.size(); k < 5 * 256; ++k)
      ASSERT_EQ(batch.data[b * 5 * 256 + k], 0.0f);
  }
}

// Each usage error names the option it is about.
TEST(EncodeCliTest, BadUsageExitsTwoNamingTheOption) {
  const std::pair<const char*, const char*> cases[] = {
      {"encode", "--tokens, --tokens-file and --text-file"},
      {"encode --tokens 1 --pairs", "--pairs needs --text-file"},
      {"encode --text-file x.txt", "--text-file needs --model"},
      {"encode --tokens \"1\" --tokens-file x", "--tokens, --tokens-file and --text-file"},
      {"encode --tokens 1 --stage middle", "--stage must be"},
      {"encode --tokens 1 --pe-mode never", "--pe-mode"},
      {"encode --tokens 1 --threads -1", "--threads must be in [0, 1024], got -1"},
      {"encode --tokens 1 --threads two", "--threads: 'two' is not a size"},
      {"encode --tokens 1 --repeat 0", "--repeat must be in [1, 1000000], got 0"},
      {"encode --tokens 1 --output x.csv", "--output must end in .npy, got 'x.csv'"},
      {"encode --token 5", "unknown option --token for encode (did you mean --tokens?)"},
      {"make-toy", "--out is required"},
      {"make-toy --out /tmp/x --d-model 7", "--d-model: 7 is odd"},
      {"make-toy --out /tmp/x --n-heads 3", "--n-heads"},
      {"make-toy --out /tmp/x --d-model seven", "--d-model: 'seven' is not a size"},
  };
  for (const auto& [args, fragment] : cases) {
    const auto r = RunPhasor(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    testing::ExpectOneErrorLine(r);
    EXPECT_NE(r.err.find(fragment), std::string::npos) << args << ": " << r.err;
  }
}

TEST(EncodeCliTest, BadTokensExitOne) {
  ExpectDataError("encode --tokens \"3 1000 4\"",
                  "--tokens: line 1, token 2: token id 1000 is outside the vocabulary [0, 1000)");
  ExpectDataError("encode --tokens \"3 -2\"", "--tokens: line 1, token 2: token id -2 is outside");
  ExpectDataError("encode --tokens \"3 x 4\"", "--tokens: line 1, token 2: 'x' is not a token id");
  ExpectDataError("encode --tokens \"\"", "--tokens: holds no token ids");
  ExpectDataError("encode --tokens \" \"", "--tokens: holds no token ids");
  const std::string empty = ::testing::TempDir() + "empty_tokens.txt";
  WriteFile(empty, "\n\n");
  ExpectDataError("encode --tokens-file " + empty, "holds no token ids");
  ExpectDataError("encode --tokens-file /nonexistent/tokens.txt",
                  "cannot read tokens file /nonexistent/tokens.txt: No such file or directory");
  // A file with a blank line: a bad id and a bad token at the same place are
  // named the same way, by the line and token of the file.
  const std::string blank = ::testing::TempDir() + "blank_line_tokens.txt";
  WriteFile(blank, "1 2\n\n3 1000\n");
  ExpectDataError("encode --tokens-file " + blank, blank + ": line 3, token 2: token id 1000");
  WriteFile(blank, "1 2\n\n3 x\n");
  ExpectDataError("encode --tokens-file " + blank, blank + ": line 3, token 2: 'x'");
  // Past max_len in cached mode: a small model whose table holds 8 rows, fed 9 tokens.
  const std::string dir = MakeSmallModel("maxlen");
  const std::string config = dir + "/config.json";
  std::string text = ReadFile(config);
  const std::string from = "\"max_len\": 4096";
  ASSERT_NE(text.find(from), std::string::npos) << text;
  text.replace(text.find(from), from.size(), "\"max_len\": 8");
  WriteFile(config, text);
  const std::string nine = "--model " + dir + " --tokens \"7 7 7 7 7 7 7 7 7\"";
  ExpectDataError("encode --pe-mode cached " + nine,
                  "line 1 has 9 tokens, more than the 8 positions of the model's cached PE table "
                  "(max_len 8, from position 0)");
  EXPECT_EQ(RunPhasor("encode --pe-mode auto " + nine).exit_code, 0);
  EXPECT_EQ(RunPhasor("encode --pe-mode cached --model " + dir + " --tokens \"7 7 7 7 7 7 7 7\"")
                .exit_code,
            0);
}

TEST(EncodeCliTest, BadModelDirectoryExitsOne) {
  ExpectDataError("encode --model /nonexistent/model --tokens 1",
                  "no such folder '/nonexistent/model'; phasor reads a local folder: download it "
                  "first, e.g. with huggingface-cli download /nonexistent/model --local-dir DIR");
  const std::string dir = MakeSmallModel("nofile");
  std::remove((dir + "/model.safetensors").c_str());
  ExpectDataError("encode --model " + dir + " --tokens 1", "model.safetensors");
  const std::string nocfg = MakeSmallModel("nocfg");
  std::remove((nocfg + "/config.json").c_str());
  ExpectDataError("encode --model " + nocfg + " --tokens 1", "config.json");
}

TEST(EncodeCliTest, BadSafetensorsExitsOne) {
  const std::string dir = MakeSmallModel("st");
  const std::string path = dir + "/model.safetensors";
  const std::string good = ReadFile(path);
  const auto with = [&](const std::string& bytes, const std::string& fragment) {
    WriteFile(path, bytes);
    ExpectDataError("encode --model " + dir + " --tokens \"1 2\"", fragment);
  };
  with(good.substr(0, good.size() / 2), "model.safetensors");  // truncated data
  with(good.substr(0, 5), "model.safetensors");                // shorter than 8 bytes
  with(Safetensors(std::string(100, ' '), "").substr(0, 50),
       "model.safetensors");  // header past end
  with(Safetensors("{not json", ""), "model.safetensors");
  with(Safetensors(R"({"embedding.weight":{"dtype":"I7","shape":[1],"data_offsets":[0,4]}})",
                   std::string(4, '\0')),
       "I7");
  with(Safetensors(R"({"embedding.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                   std::string(4, '\0')),
       "embedding.weight");  // offsets out of range
  with(Safetensors(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                   R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                   std::string(12, '\0')),
       "overlap");
  with(Safetensors(R"({"embedding.weight":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                   std::string(4, '\0')),
       "embedding.weight': got [1], expected [20, 16]");  // misshapen tensor
  with(Safetensors(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                   std::string(4, '\0')),
       "missing tensor 'embedding.weight'");
}

TEST(EncodeCliTest, BadConfigExitsOne) {
  const std::string dir = MakeSmallModel("cfg");
  const std::string path = dir + "/config.json";
  auto cfg = nlohmann::json::parse(ReadFile(path));
  const auto with = [&](const nlohmann::json& j, const std::string& fragment) {
    WriteFile(path, j.dump());
    ExpectDataError("encode --model " + dir + " --tokens \"1 2\"", fragment);
  };
  auto j = cfg;
  j["d_model"] = "sixteen";
  with(j, "d_model");
  j = cfg;
  j["positional"]["kind"] = "wavelet";
  with(j, "wavelet");
  j = cfg;
  j["n_heads"] = 3;
  with(j, "n_heads");
  j = cfg;
  j["d_modle"] = 16;
  with(j, "d_modle");
  WriteFile(path, "{ \"vocab_size\": 20,");
  ExpectDataError("encode --model " + dir + " --tokens 1", "config.json");
}

TEST(EncodeCliTest, BatchOverTheMemoryLimitIsOneErrorLine) {
  // The model (266 KiB) and 1 x 3 tokens fit in 1 MiB; 3000 x 3 tokens run in
  // batches of the default 2048 tokens, whose workspace and rows need 1.1 MiB.
  const auto small = RunPhasor("--max-memory 1M encode --model " + MakeSmallModel("memcap") +
                               " --tokens \"1 2 3\"");
  EXPECT_EQ(small.exit_code, 0) << small.err;
  std::string lines;
  for (int k = 0; k < 3000; ++k) lines += "1 2 3\n";
  const std::string file = ::testing::TempDir() + "memcap_tokens.txt";
  WriteFile(file, lines);
  const auto r = RunPhasor("--max-memory 1M encode --model " + MakeSmallModel("memcap") +
                           " --tokens-file " + file);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  testing::ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("batches of 2048 tokens (the encoder's workspace and the batch's rows) "
                       "needs 1.1 MiB, more than the memory limit of 1 MiB"),
            std::string::npos)
      << r.err;
  // Memory is bounded by the token budget, not by the file: 64 tokens a batch fit.
  const std::string out = ::testing::TempDir() + "memcap_out.npy";
  const auto fits =
      RunPhasor("--max-memory 1M encode --model " + MakeSmallModel("memcap") + " --tokens-file " +
                file + " --batch-tokens 64 --output " + out + " --json");
  ASSERT_EQ(fits.exit_code, 0) << fits.err;
  EXPECT_EQ(nlohmann::json::parse(fits.out)["batches"], (3000 + 20) / 21);  // 21 lines a batch
  EXPECT_EQ(ReadNpy(out).shape, (std::vector<int64_t>{3000, 3, 16}));
  std::remove(out.c_str());
}

// The toy model's pad_token_id is 0: trailing 0s are padding. The counts say
// how many tokens were encoded, one warning names the line, and a line of
// padding alone is an error.
TEST(EncodeCliTest, TrailingPadIdsAreCountedWarnedAndRefusedAlone) {
  auto r = RunPhasor("encode --tokens \"5 7 0\" --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["real_tokens"], 2);
  EXPECT_EQ(j["seq_len"], 3);
  EXPECT_NEAR(j["tokens_per_s"].get<double>() * j["seconds"].get<double>(), 2.0, 1e-6);
  EXPECT_EQ(r.err,
            "phasor: warning: --tokens: line 1 ends in 1 pad id (pad_token_id 0), taken as "
            "padding: masked, and their output rows are 0\n");

  r = RunPhasor("encode --tokens \"5 7 0\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 sequence(s), longest 3 tokens (2 real in all)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("seq 0, token 1:"), std::string::npos) << r.out;  // the last real one
  EXPECT_EQ(r.out.find("seq 0, token 2:"), std::string::npos) << r.out;

  // No pad id: no warning.
  r = RunPhasor("encode --tokens \"5 7 9\" --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["real_tokens"], 3);
  EXPECT_EQ(r.err, "");

  ExpectDataError("encode --tokens \"0 0 0\"",
                  "--tokens: line 1 holds only the pad id 0 (pad_token_id): nothing to encode");

  // A ragged file: line 1 ends in a pad id, line 3 is short; 4 real tokens.
  const std::string file = ::testing::TempDir() + "pad_tokens.txt";
  WriteFile(file, "5 7 0\n\n5 7\n");
  r = RunPhasor("encode --tokens-file " + file + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["real_tokens"], 4);
  EXPECT_NE(r.err.find(file + ": line 1 ends in 1 pad id"), std::string::npos) << r.err;
  WriteFile(file, "5 7 0 0\n3 0\n4 5 6 7\n");
  r = RunPhasor("encode --tokens-file " + file + " --stage embeddings --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["real_tokens"], 7);
  EXPECT_EQ(r.err,
            "phasor: warning: " + file +
                ": line 1 ends in 2 pad ids (pad_token_id 0), and 1 more line (3 pad ids in all), "
                "taken as padding: masked, and their output rows are 0\n");
  WriteFile(file, "5 7\n0\n");
  ExpectDataError("encode --tokens-file " + file, file + ": line 2 holds only the pad id 0");
}

TEST(EncodeCliTest, WritesOneWroteLineAndNoProgressIntoAFile) {
  const std::string out = ::testing::TempDir() + "encode_cli_wrote.npy";
  const auto r = RunPhasor("encode --tokens \"3 14 15\" --threads 1 --output " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "phasor: wrote " + out + ": float32 [1, 3, 256], final hidden states\n");
  EXPECT_NE(r.out.find(", 1 thread\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("1 threads"), std::string::npos) << r.out;
  // stderr is a file here: no bar, no carriage return.
  EXPECT_EQ(r.err.find('\r'), std::string::npos);
  std::remove(out.c_str());
  const auto bad = RunPhasor("encode --tokens 1 --output " + out + ".csv");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(ReadFile(out + ".csv"), "");  // nothing written under a wrong name
}

}  // namespace
}  // namespace phasor

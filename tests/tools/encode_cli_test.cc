// `phasor encode` and `phasor make-toy` run as a user runs them, including
// every class of bad model file and bad token input.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/npy.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

using testing::ReadFile;
using testing::RunPhasor;

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A small model directory written by make-toy; each test gets a fresh copy.
std::string MakeSmallModel(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "encode_cli_" + name;
  const auto r = RunPhasor("make-toy --out " + dir +
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
  ASSERT_EQ(RunPhasor("make-toy --out " + dir).exit_code, 0);
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

TEST(EncodeCliTest, BadUsageExitsTwo) {
  for (const char* args :
       {"encode", "encode --tokens \"1\" --tokens-file x", "encode --tokens 1 --stage middle",
        "encode --tokens 1 --pe-mode never", "encode --tokens 1 --threads -1",
        "encode --tokens 1 --repeat 0", "make-toy", "make-toy --out /tmp/x --d-model 7"}) {
    const auto r = RunPhasor(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    testing::ExpectOneErrorLine(r);
  }
}

TEST(EncodeCliTest, BadTokensExitOne) {
  ExpectDataError("encode --tokens \"3 1000 4\"", "token id 1000 at sequence 0, position 1");
  ExpectDataError("encode --tokens \"3 -2\"", "token id -2 at sequence 0, position 1");
  ExpectDataError("encode --tokens \"3 x 4\"", "'x' is not a token id");
  const std::string empty = ::testing::TempDir() + "empty_tokens.txt";
  WriteFile(empty, "\n\n");
  ExpectDataError("encode --tokens-file " + empty, "holds no token ids");
  ExpectDataError("encode --tokens-file /nonexistent/tokens.txt", "/nonexistent/tokens.txt");
  // Past max_len in cached mode: a small model whose table holds 8 rows, fed 9 tokens.
  const std::string dir = MakeSmallModel("maxlen");
  const std::string config = dir + "/config.json";
  std::string text = ReadFile(config);
  const std::string from = "\"max_len\": 4096";
  ASSERT_NE(text.find(from), std::string::npos) << text;
  text.replace(text.find(from), from.size(), "\"max_len\": 8");
  WriteFile(config, text);
  const std::string nine = "--model " + dir + " --tokens \"7 7 7 7 7 7 7 7 7\"";
  ExpectDataError("encode --pe-mode cached " + nine, "past the cached PE table");
  EXPECT_EQ(RunPhasor("encode --pe-mode auto " + nine).exit_code, 0);
  EXPECT_EQ(RunPhasor("encode --pe-mode cached --model " + dir + " --tokens \"7 7 7 7 7 7 7 7\"")
                .exit_code,
            0);
}

TEST(EncodeCliTest, BadModelDirectoryExitsOne) {
  ExpectDataError("encode --model /nonexistent/model --tokens 1", "/nonexistent/model");
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
  // The model (266 KiB) and 1 x 3 tokens fit in 1 MiB; 3000 x 3 tokens need
  // 3000·3·(7·16·4 + 8 + 16·4) bytes = 4.5 MiB of workspace and output.
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
  EXPECT_NE(r.err.find("a batch of 3000 x 3 tokens (workspace and output) needs 4.5 MiB"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace phasor

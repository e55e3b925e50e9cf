// A tokens file through `phasor encode` in several batches (--batch-tokens):
// every line's rows land in that line's place, whatever batch it ran in and
// wherever it sat in that batch, and packed rows and offsets leave out a
// line's trailing pad ids. Two references each: the same file in one batch,
// and each line encoded alone.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "engine/npy.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

using testing::ReadFile;
using testing::RunPhasor;

// The built-in toy model: d_model 256, pad_token_id 0, so line 3 ends in a pad
// id. Real tokens per line 3, 1, 2, 2, 1, 3 (12 in all); a budget of 3 cuts
// them into the batches {1}, {2, 3}, {4, 5}, {6}, so most lines sit at an
// index within their batch other than their own.
const std::vector<std::string> kLines = {"5 6 7", "8", "9 10 0", "11 12", "13", "14 15 16"};
const std::vector<std::string> kRealTokens = {"5 6 7", "8", "9 10", "11 12", "13", "14 15 16"};
const std::vector<int64_t> kOffsets = {0, 3, 4, 6, 8, 9, 12};  // packed rows of each line
constexpr int64_t kSeq = 3;                                    // the longest line, pads included
constexpr int64_t kD = 256;

// A line's rows are the same bits whatever batch it is in and alone
// (models/corpus.h): every comparison below is exact.
void ExpectSameRows(const float* got, const float* want, int64_t rows, const std::string& what) {
  for (int64_t k = 0; k < rows * kD; ++k) {
    if (std::memcmp(&got[k], &want[k], sizeof(float)) != 0) {
      ADD_FAILURE() << what << ": row " << k / kD << ", column " << k % kD << ": got " << got[k]
                    << ", expected " << want[k];
      return;
    }
  }
}

std::string WriteLines(const std::string& name) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream out(path);
  for (const std::string& line : kLines) out << line << "\n";
  return path;
}

// Runs `encode ARGS --json` and returns its "batches".
int64_t EncodeBatches(const std::string& args) {
  const auto r = RunPhasor("encode " + args + " --json");
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  if (r.exit_code != 0) return -1;
  return nlohmann::json::parse(r.out)["batches"].get<int64_t>();
}

// Line b's real tokens encoded alone: [kRealTokens[b] tokens, d_model].
NpyArray Alone(int64_t b) {
  const std::string out = ::testing::TempDir() + "alone_" + std::to_string(b) + ".npy";
  EXPECT_EQ(RunPhasor("encode --tokens \"" + kRealTokens[b] + "\" --output " + out).exit_code, 0);
  return ReadNpy(out);
}

// An int64 .npy file of one dimension, as WriteNpyInt64 writes it.
std::vector<int64_t> ReadInt64Npy(const std::string& path) {
  const std::string bytes = ReadFile(path);
  EXPECT_GE(bytes.size(), 10u) << path;
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0 || bytes[6] != 1) {
    ADD_FAILURE() << path << " is not an npy file of version 1";
    return {};
  }
  const size_t header = static_cast<unsigned char>(bytes[8]) |
                        (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  EXPECT_NE(bytes.find("'descr': '<i8'"), std::string::npos) << bytes.substr(10, header);
  std::vector<int64_t> values((bytes.size() - 10 - header) / 8);
  std::memcpy(values.data(), bytes.data() + 10 + header, values.size() * 8);
  return values;
}

struct Budget {
  int64_t batch_tokens;
  int64_t batches;  // what the lines above make of it
};

void PrintTo(const Budget& b, std::ostream* os) {
  *os << "--batch-tokens " << b.batch_tokens << " (" << b.batches << " batches)";
}

class EncodeCorpusCliTest : public ::testing::TestWithParam<Budget> {};

// Padded [lines, seq, d_model]: line b in rows b·seq .., zeros past its real
// tokens, the same as in one batch and alone.
TEST_P(EncodeCorpusCliTest, PaddedOutputOfSeveralBatchesKeepsEachLineInItsPlace) {
  const Budget budget = GetParam();
  const std::string file = WriteLines("lines.txt");
  const std::string one = ::testing::TempDir() + "one_batch.npy";
  const std::string several = ::testing::TempDir() + "several_batches.npy";
  ASSERT_EQ(EncodeBatches("--tokens-file " + file + " --output " + one), 1);
  ASSERT_EQ(EncodeBatches("--tokens-file " + file + " --batch-tokens " +
                          std::to_string(budget.batch_tokens) + " --output " + several),
            budget.batches);
  const NpyArray a = ReadNpy(one), b = ReadNpy(several);
  const std::vector<int64_t> shape = {static_cast<int64_t>(kLines.size()), kSeq, kD};
  ASSERT_EQ(a.shape, shape);
  ASSERT_EQ(b.shape, shape);
  ExpectSameRows(b.data.data(), a.data.data(), shape[0] * kSeq, "several batches against one");
  for (int64_t line = 0; line < shape[0]; ++line) {
    const NpyArray alone = Alone(line);
    const int64_t n = kOffsets[line + 1] - kOffsets[line];
    ASSERT_EQ(alone.shape, (std::vector<int64_t>{1, n, kD}));
    const float* rows = b.data.data() + line * kSeq * kD;
    ExpectSameRows(rows, alone.data.data(), n, "line " + std::to_string(line + 1) + " alone");
    for (int64_t k = n * kD; k < kSeq * kD; ++k) {
      ASSERT_EQ(rows[k], 0.0f) << "line " << line + 1 << ", padding value " << k - n * kD;
    }
  }
}

// Packed [real tokens, d_model] with offsets: line 3's trailing pad id has no
// row, and every line's rows are those of one batch and of the line alone.
TEST_P(EncodeCorpusCliTest, PackedRowsAndOffsetsLeaveTrailingPadIdsOut) {
  const Budget budget = GetParam();
  const std::string file = WriteLines("lines.txt");
  const std::string padded = ::testing::TempDir() + "padded.npy";
  const std::string packed = ::testing::TempDir() + "packed.npy";
  const std::string offsets = ::testing::TempDir() + "offsets.npy";
  ASSERT_EQ(EncodeBatches("--tokens-file " + file + " --output " + padded), 1);
  ASSERT_EQ(EncodeBatches("--tokens-file " + file + " --layout packed --batch-tokens " +
                          std::to_string(budget.batch_tokens) + " --output " + packed +
                          " --offsets " + offsets),
            budget.batches);
  EXPECT_EQ(ReadInt64Npy(offsets), kOffsets);
  const NpyArray rows = ReadNpy(packed), one = ReadNpy(padded);
  ASSERT_EQ(rows.shape, (std::vector<int64_t>{kOffsets.back(), kD}));
  for (int64_t line = 0; line + 1 < static_cast<int64_t>(kOffsets.size()); ++line) {
    const int64_t n = kOffsets[line + 1] - kOffsets[line];
    const float* got = rows.data.data() + kOffsets[line] * kD;
    const std::string what = "line " + std::to_string(line + 1);
    ExpectSameRows(got, one.data.data() + line * kSeq * kD, n, what + " in one padded batch");
    ExpectSameRows(got, Alone(line).data.data(), n, what + " alone");
  }
  // Beside the output when --offsets is not given.
  const std::string beside = ::testing::TempDir() + "beside.npy";
  ASSERT_EQ(EncodeBatches("--tokens-file " + file + " --layout packed --batch-tokens " +
                          std::to_string(budget.batch_tokens) + " --output " + beside),
            budget.batches);
  EXPECT_EQ(ReadInt64Npy(::testing::TempDir() + "beside.offsets.npy"), kOffsets);
  EXPECT_EQ(ReadFile(beside), ReadFile(packed));
}

INSTANTIATE_TEST_SUITE_P(Budgets, EncodeCorpusCliTest,
                         ::testing::Values(Budget{3, 4}, Budget{4, 3}, Budget{5, 3}, Budget{12, 1}),
                         [](const ::testing::TestParamInfo<Budget>& info) {
                           return "BatchTokens" + std::to_string(info.param.batch_tokens);
                         });

}  // namespace
}  // namespace phasor

// --rope-angles through the command line: it reaches the model (encode) and the
// table (pe --kind rope), changes nothing without rotary positions, and a
// wrong value is one usage line (serve's: tests/serve/test_serve.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/npy.h"
#include "tests/support/paths.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

using testing::RunPhasor;
using testing::WriteFile;

std::string Hf(const std::string& name) {
  return std::string(phasor::testing::kTestDataDir) + "/hf/" + name;
}

double MaxDiff(const NpyArray& a, const NpyArray& b) {
  EXPECT_EQ(a.shape, b.shape);
  double d = 0;
  for (size_t i = 0; i < std::min(a.data.size(), b.data.size()); ++i) {
    const double e = std::fabs(static_cast<double>(a.data[i]) - b.data[i]);
    d = std::isfinite(e) ? std::max(d, e) : INFINITY;
  }
  return d;
}

// encode of MODEL on tokens FILE with extra options; the output read back.
NpyArray Encode(const std::string& model, const std::string& tokens, const std::string& extra) {
  static int n = 0;
  const std::string out = ::testing::TempDir() + "angles_" + std::to_string(++n) + ".npy";
  const auto r = RunPhasor("encode --model " + model + " --tokens-file " + tokens + " --output " +
                           out + extra);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return ReadNpy(out);
}

// One line of n ids in [4, 60) (no special or pad id of the ModernBERT golden).
std::string LongLine(int n) {
  const std::string path = ::testing::TempDir() + "angles_long_" + std::to_string(n) + ".txt";
  std::string line;
  for (int j = 0; j < n; ++j) line += std::to_string(4 + (j * 7) % 56) + (j + 1 < n ? " " : "\n");
  WriteFile(path, line);
  return path;
}

TEST(RopeAnglesCliTest, LibraryAnglesMatchTheGoldenAtShortRange) {
  // The golden lines are short: float32 angles are within 2e-5 of exact ones there.
  for (const char* name : {"modernbert", "qwen3"}) {
    const std::string tokens = Hf(name) + "/tokens.txt";
    const NpyArray exact = Encode(Hf(name), tokens, "");
    const NpyArray library = Encode(Hf(name), tokens, " --rope-angles library");
    EXPECT_LT(MaxDiff(exact, library), 1e-4) << name;
  }
}

TEST(RopeAnglesCliTest, LibraryAnglesChangeTheOutputAtLongRange) {
  // ModernBERT: global layers at base 160,000, local ones at 10,000.
  const std::string tokens = LongLine(3000);
  const NpyArray exact = Encode(Hf("modernbert"), tokens, "");
  const NpyArray named = Encode(Hf("modernbert"), tokens, " --rope-angles exact");
  const NpyArray library = Encode(Hf("modernbert"), tokens, " --rope-angles library");
  EXPECT_EQ(MaxDiff(exact, named), 0.0);
  const double d = MaxDiff(exact, library);
  EXPECT_GT(d, 1e-6);  // measured 1.5e-5 (small weights damp it)
  EXPECT_LT(d, 1e-3);
}

TEST(RopeAnglesCliTest, JsonSaysTheAngles) {
  const auto r = RunPhasor("encode --model " + Hf("qwen3") +
                           " --tokens \"5 6 7\" --rope-angles library --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"rope_angles\":\"library\""), std::string::npos) << r.out;
}

TEST(RopeAnglesCliTest, AModelWithoutRotaryPositionsIsUnchanged) {
  const std::string tokens = Hf("bert") + "/tokens.txt";
  const NpyArray exact = Encode(Hf("bert"), tokens, "");
  const NpyArray library = Encode(Hf("bert"), tokens, " --rope-angles library");
  EXPECT_EQ(MaxDiff(exact, library), 0.0);
}

TEST(RopeAnglesCliTest, PeRopeTableMatchesTheGolden) {
  // Position 32,767 of base 1e6 over 128 dims: row 16 of the golden
  // (tests/data/make_rope_library_golden.py), cos | sin as the half layout.
  const std::string out = ::testing::TempDir() + "angles_pe.npy";
  const auto r = RunPhasor(
      "pe --kind rope --d-model 128 --base 1000000 --start 32767 --length 1 --rope-angles "
      "library --output " +
      out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const NpyArray got = ReadNpy(out);
  const NpyArray want =
      ReadNpy(std::string(phasor::testing::kTestDataDir) + "/rope_library/base_1e6.npy");
  ASSERT_EQ(got.shape, (std::vector<int64_t>{1, 128}));
  for (int k = 0; k < 128; ++k) {
    const float w = want.data[16 * 128 + k];
    EXPECT_LE(std::fabs(got.data[k] - w), std::nextafter(std::fabs(w), 2.0f) - std::fabs(w)) << k;
  }
}

TEST(RopeAnglesCliTest, AWrongValueIsOneUsageLine) {
  const std::string line =
      "phasor: error: --rope-angles: unknown rotary angles 'float32', expected 'exact' or "
      "'library'\n";
  for (const std::string& cmd :
       {"encode --model " + Hf("qwen3") + " --tokens \"5 6\" --rope-angles float32",
        std::string("encode --tokens \"5 6\" --rope-angles float32"),
        std::string("pe --kind rope --d-model 8 --length 2 --rope-angles float32")}) {
    const auto r = RunPhasor(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_EQ(r.err, line) << cmd;
  }
  const auto r = RunPhasor("pe --d-model 8 --length 2 --rope-angles library");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "phasor: error: --rope-angles applies to --kind rope only\n");
}

}  // namespace
}  // namespace phasor

// RoPE's library angles (RopeAngles::kLibrary) against the float32 golden of
// tests/data/make_rope_library_golden.py (NumPy, written from the Hugging Face
// code), in every mode; exact angles against them at long range.
#include "layers/library_angles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/npy.h"
#include "layers/rope.h"
#include "tests/support/paths.h"

namespace phasor {
namespace {

// The golden's positions and cases (make_rope_library_golden.py).
const std::vector<int64_t> kPositions = {
    0, 1, 2, 3, 7, 100, 511, 512, 1000, 4095, 8191, 8192, 12345, 16383, 20000, 32766, 32767, 32768};

struct GoldenCase {
  std::string name;
  double base;
  int64_t r;
  RopeScaling scaling;
};

std::vector<GoldenCase> Cases() {
  RopeScaling linear, ntk, gte, llama3, yarn;
  linear.type = RopeScalingType::kLinear;
  linear.factor = 4;
  ntk.type = RopeScalingType::kNtk;
  ntk.factor = 2;
  gte.type = RopeScalingType::kGte;
  gte.factor = 2;
  llama3.type = RopeScalingType::kLlama3;
  llama3.factor = 8;
  llama3.original_max_len = 8192;
  yarn.type = RopeScalingType::kYarn;
  yarn.factor = 4;
  yarn.original_max_len = 4096;
  return {{"base_10000", 10000, 64, {}},  {"base_160000", 160000, 64, {}},
          {"base_1e6", 1e6, 128, {}},     {"linear", 10000, 64, linear},
          {"ntk", 10000, 64, ntk},        {"gte", 160000, 64, gte},
          {"llama3", 500000, 64, llama3}, {"yarn", 10000, 64, yarn}};
}

std::string GoldenPath(const std::string& name) {
  return std::string(phasor::testing::kTestDataDir) + "/rope_library/" + name + ".npy";
}

RopeOptions Options(const GoldenCase& c, PeMode mode, int64_t max_len) {
  RopeOptions o;
  o.d_head = c.r;
  o.base = c.base;
  o.mode = mode;
  o.max_len = max_len;
  o.scaling = c.scaling;
  o.angles = RopeAngles::kLibrary;
  return o;
}

// Units in the last place of want between got and want.
double Ulps(float got, float want) {
  const float ulp = std::nextafter(std::fabs(want), INFINITY) - std::fabs(want);
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

TEST(LibraryAnglesTest, InverseFrequenciesAreTheLibrariesFloat32Bits) {
  for (const GoldenCase& c : Cases()) {
    const NpyArray want = ReadNpy(GoldenPath(c.name + "_inv"));
    const std::vector<float> got =
        LibraryInverseFrequencies(Options(c, PeMode::kOnTheFly, 0), /*seq_end=*/1);
    ASSERT_EQ(static_cast<int64_t>(got.size()), c.r / 2) << c.name;
    ASSERT_EQ(want.data.size(), got.size()) << c.name;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i], want.data[i]) << c.name << " pair " << i;
    }
  }
}

// The rows of every position, read from the cached table (cached), made on the
// fly (on_the_fly), or both (auto with a table of 1,000 rows).
class LibraryRowsTest : public ::testing::TestWithParam<PeMode> {};

TEST_P(LibraryRowsTest, CosSinMatchTheGoldenWithinOneUlp) {
  const PeMode mode = GetParam();
  const int64_t max_len = mode == PeMode::kCached ? 32769 : 1000;
  for (const GoldenCase& c : Cases()) {
    const Rope rope(Options(c, mode, max_len));
    const NpyArray want = ReadNpy(GoldenPath(c.name));  // [positions, r]
    ASSERT_EQ(want.shape, (std::vector<int64_t>{static_cast<int64_t>(kPositions.size()), c.r}));
    std::vector<float> got(static_cast<size_t>(c.r));
    double worst = 0;
    for (size_t j = 0; j < kPositions.size(); ++j) {
      rope.FillCosSin(kPositions[j], 1, got.data());
      for (int64_t k = 0; k < c.r; ++k) {
        const double ulps = Ulps(got[k], want.data[j * c.r + k]);
        worst = std::max(worst, ulps);
        ASSERT_LE(ulps, 1.0) << c.name << " position " << kPositions[j] << " value " << k
                             << ": got " << got[k] << ", want " << want.data[j * c.r + k];
      }
    }
    RecordProperty(c.name, std::to_string(worst));
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, LibraryRowsTest,
                         ::testing::Values(PeMode::kCached, PeMode::kOnTheFly, PeMode::kAuto),
                         [](const ::testing::TestParamInfo<PeMode>& info) {
                           return std::string(ToString(info.param));
                         });

// README's table: Qwen3's base 1e6 over 128 dims, cos/sin of float32 angles
// against exact ones: 2.0e-3 at most over positions below 32,768 (1.26e-3 at
// 32,767 itself, NumPy); at position 7 both are within float32 rounding.
TEST(LibraryAnglesTest, ExactAnglesDifferAsReadmeSaysAtLongRange) {
  GoldenCase qwen{"base_1e6", 1e6, 128, {}};
  RopeOptions exact_options = Options(qwen, PeMode::kOnTheFly, 0);
  exact_options.angles = RopeAngles::kExact;
  const Rope exact(exact_options), library(Options(qwen, PeMode::kOnTheFly, 0));
  std::vector<float> a(128), b(128);
  const auto differ = [&](int64_t pos) {
    exact.FillCosSin(pos, 1, a.data());
    library.FillCosSin(pos, 1, b.data());
    double d = 0;
    for (int k = 0; k < 128; ++k) d = std::max(d, std::fabs(static_cast<double>(a[k]) - b[k]));
    return d;
  };
  const double far = differ(32767);
  EXPECT_GT(far, 1.0e-3);
  EXPECT_LT(far, 2.0e-3);
  EXPECT_LT(differ(7), 1e-6);
  // The exact rows keep their promise: within 2e-6 of the long double formula.
  exact.FillCosSin(32767, 1, a.data());
  for (int k = 0; k < 64; ++k) {
    const long double angle = 32767.0L * std::pow(1e6L, -2.0L * k / 128);
    EXPECT_NEAR(a[k], static_cast<double>(std::cos(angle)), 2e-6) << k;
    EXPECT_NEAR(a[64 + k], static_cast<double>(std::sin(angle)), 2e-6) << k;
  }
}

// Dynamic scaling past L0 makes its rows per call (a thread's own engine): in
// library mode too, from the float32 ladder of the raised base.
TEST(LibraryAnglesTest, DynamicScalingPastItsLengthUsesFloat32Angles) {
  RopeOptions o;
  o.d_head = 32;
  o.max_len = 64;
  o.mode = PeMode::kAuto;
  o.scaling.type = RopeScalingType::kDynamic;
  o.scaling.factor = 2;
  o.angles = RopeAngles::kLibrary;
  const Rope rope(o);
  const int64_t pos = 4000;  // a call of one row ending at 4001 > L0 = 64
  std::vector<float> got(32);
  rope.FillCosSin(pos, 1, got.data());
  // base·(s·L/L0 − (s − 1))^(r/(r−2)) in double, then float32 as the libraries.
  const double base = 10000.0 * std::pow(2.0 * 4001 / 64 - 1, 32.0 / 30);
  for (int i = 0; i < 16; ++i) {
    const float e = static_cast<float>(2 * i) / 32.0f;
    const float p = static_cast<float>(
        std::pow(static_cast<long double>(static_cast<float>(base)), static_cast<long double>(e)));
    volatile float inv = 1.0f / p;
    volatile float angle = static_cast<float>(pos) * inv;
    EXPECT_EQ(got[i], static_cast<float>(std::cos(static_cast<double>(angle)))) << i;
    EXPECT_EQ(got[16 + i], static_cast<float>(std::sin(static_cast<double>(angle)))) << i;
  }
}

TEST(LibraryAnglesTest, ParsesItsNames) {
  EXPECT_EQ(ParseRopeAngles("exact"), RopeAngles::kExact);
  EXPECT_EQ(ParseRopeAngles("library"), RopeAngles::kLibrary);
  EXPECT_STREQ(ToString(RopeAngles::kLibrary), "library");
  try {
    ParseRopeAngles("float32");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unknown rotary angles 'float32', expected 'exact' or 'library'");
  }
}

}  // namespace
}  // namespace phasor

// `phasor pe --kind rope` and `phasor pe --similarity`, run as a user runs them.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>

#include "engine/npy.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

using testing::RunPhasor;

// What a RoPE table holds: rows from start, r dims, the half or interleaved
// layout, θ_i = position · base^(-2i/r) · inv_scale, values scaled by af.
struct RopeTable {
  int64_t start, r;
  bool half;
  long double base, inv_scale, af;
};

// The RoPE table row of position p: (cos θ_i, sin θ_i)·af at pair i's two dims.
void ExpectRopeRows(const NpyArray& a, const RopeTable& t) {
  const int64_t start = t.start, r = t.r;
  const bool half = t.half;
  const long double base = t.base, inv_scale = t.inv_scale, af = t.af;
  ASSERT_EQ(a.shape.size(), 2u);
  ASSERT_EQ(a.shape[1], r);
  for (int64_t j = 0; j < a.shape[0]; ++j) {
    for (int64_t i = 0; i < r / 2; ++i) {
      const long double inv = powl(base, -2.0L * i / r) * inv_scale;
      const long double angle = static_cast<long double>(start + j) * inv;
      const int64_t c = half ? i : 2 * i, s = half ? i + r / 2 : 2 * i + 1;
      EXPECT_NEAR(a.data[j * r + c], static_cast<double>(af * cosl(angle)), 2e-6)
          << "position " << start + j << " pair " << i;
      EXPECT_NEAR(a.data[j * r + s], static_cast<double>(af * sinl(angle)), 2e-6)
          << "position " << start + j << " pair " << i;
    }
  }
}

TEST(PeRopeCliTest, HalfLayoutNear2p24) {
  const std::string path = ::testing::TempDir() + "pe_rope_half.npy";
  const auto r =
      RunPhasor("pe --kind rope --d-model 16 --length 4 --start 16777212 --output " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const NpyArray a = ReadNpy(path);
  ASSERT_EQ(a.shape, (std::vector<int64_t>{4, 16}));
  ExpectRopeRows(a, {16777212, 16, true, 10000.0L, 1.0L, 1.0L});
}

// The last rows accepted, 2^40 - 3 .. 2^40 - 1.
TEST(PeRopeCliTest, HalfLayoutAtTheLastPositions) {
  const std::string path = ::testing::TempDir() + "pe_rope_last.npy";
  const auto r =
      RunPhasor("pe --kind rope --d-model 64 --length 3 --start 1099511627773 --output " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const NpyArray a = ReadNpy(path);
  ASSERT_EQ(a.shape, (std::vector<int64_t>{3, 64}));
  ExpectRopeRows(a, {1099511627773, 64, true, 10000.0L, 1.0L, 1.0L});
}

TEST(PeRopeCliTest, InterleavedPartialLinearAtOffset1000) {
  const std::string path = ::testing::TempDir() + "pe_rope_interleaved.npy";
  const auto r = RunPhasor(
      "pe --kind rope --d-model 32 --rotary-dim 8 --layout interleaved --base 500 "
      "--scaling linear --factor 4 --length 5 --start 1000 --mode cached --max-len 2000 "
      "--output " +
      path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const NpyArray a = ReadNpy(path);
  ASSERT_EQ(a.shape, (std::vector<int64_t>{5, 8}));
  ExpectRopeRows(a, {1000, 8, false, 500.0L, 0.25L, 1.0L});
}

TEST(PeRopeCliTest, YarnTableCarriesTheAttentionFactor) {
  const std::string path = ::testing::TempDir() + "pe_rope_yarn.npy";
  const auto r = RunPhasor(
      "pe --kind rope --d-model 8 --scaling yarn --factor 16 --original-max-len 64 "
      "--length 2 --output " +
      path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const NpyArray a = ReadNpy(path);
  const double af = 0.1 * std::log(16.0) + 1;
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(a.data[i], af, 1e-6);  // position 0: cos 0
  // Pair 0 (fastest) keeps inv 1 under yarn: cos(1) at position 1.
  EXPECT_NEAR(a.data[8], af * std::cos(1.0), 2e-6);
}

TEST(PeRopeCliTest, CsvHasAColumnPerRotatedDim) {
  const auto r = RunPhasor("pe --kind rope --d-model 4 --length 2 --start 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "position,0,1,2,3");
  EXPECT_NE(r.out.find("\n3,"), std::string::npos) << r.out;
}

// The pictures, and the spread of their curves as reported on stderr.
double LargestDifference(const std::string& err) {
  const std::string key = "largest difference ";
  const size_t at = err.find(key);
  if (at == std::string::npos) return INFINITY;
  return std::stod(err.substr(at + key.size()));
}

TEST(PeRopeCliTest, SimilarityPicturesDependOnDistanceAlone) {
  for (const char* kind : {"sinusoidal", "rope"}) {
    const std::string path = ::testing::TempDir() + "pe_similarity_" + kind + ".png";
    const auto r = RunPhasor(std::string("pe --kind ") + kind +
                             " --d-model 64 --length 200 --similarity " + path);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "");  // no CSV when only the picture is asked for
    const std::string png = testing::ReadFile(path);
    ASSERT_GT(png.size(), 8u);
    EXPECT_EQ(png.substr(1, 3), "PNG");
    EXPECT_LT(LargestDifference(r.err), 1e-4) << r.err;
  }
  // Dynamic scaling depends on the call's length: its curves differ, and say so.
  const std::string path = ::testing::TempDir() + "pe_similarity_dynamic.png";
  const auto r = RunPhasor(
      "pe --kind rope --d-model 64 --length 200 --scaling dynamic --factor 4 "
      "--original-max-len 64 --similarity " +
      path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(LargestDifference(r.err), 1e-2) << r.err;
}

// 20000 distances on 640 pixels: each pixel column shows the band of its
// points and their mean, and the picture and stderr say so.
TEST(PeRopeCliTest, LongSimilarityCurvesAreReducedPerPixel) {
  const std::string path = ::testing::TempDir() + "pe_similarity_long.png";
  const auto r = RunPhasor("pe --d-model 512 --length 20000 --similarity " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("each pixel column holds up to 32 points: a light band from their least "
                       "to their greatest value, a line through their mean"),
            std::string::npos)
      << r.err;
  EXPECT_LT(LargestDifference(r.err), 1e-3) << r.err;
}

TEST(PeRopeCliTest, UsageErrorsExitTwoNamingTheOption) {
  const std::string rope = "pe --kind rope --d-model 8 --length 2 ";
  const std::pair<std::string, std::string> cases[] = {
      {"pe --kind banana --d-model 8 --length 2", "--kind must be sinusoidal or rope"},
      {rope + "--denominator d_model", "--denominator does not apply to --kind rope"},
      {"pe --d-model 8 --length 2 --rotary-dim 4", "--rotary-dim applies to --kind rope only"},
      {"pe --d-model 8 --length 2 --scaling linear --factor 2",
       "--scaling applies to --kind rope only"},
      {rope + "--rotary-dim 7", "--rotary-dim"},
      {rope + "--rotary-dim 10", "--rotary-dim"},
      {rope + "--layout split", "split"},
      {rope + "--scaling linear", "--scaling linear needs --factor"},
      {rope + "--scaling linear --factor 0", "--factor"},
      {rope + "--scaling linear --factor -1", "--factor"},
      {rope + "--scaling linear --factor 2 --beta-fast 3",
       "--beta-fast is not used by --scaling linear"},
      {rope + "--scaling none --factor 2", "--factor is not used by --scaling none"},
      {rope + "--scaling xpos --factor 2", "xpos"},
      {rope + "--rotary-dim 2 --scaling ntk --factor 2", "--rotary-dim"},
      {rope + "--scaling yarn --factor 2 --original-max-len 0",
       "--original-max-len must be > 0, got 0"},
      {rope + "--mode cached --start 5000", "--start + --length 5002 is past the cached table"},
      {"pe --d-model 8 --length 2 --similarity x.jpg", "--similarity must end in .png"},
  };
  for (const auto& [args, fragment] : cases) {
    const auto r = RunPhasor(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    testing::ExpectOneErrorLine(r);
    EXPECT_NE(r.err.find(fragment), std::string::npos) << args << ": " << r.err;
  }
}

TEST(PeRopeCliTest, HelpExplainsTheRopeOptions) {
  const auto r = RunPhasor("pe --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* opt : {"--kind", "--similarity", "--rotary-dim", "--max-len", "--scaling",
                          "--factor", "--original-max-len", "--beta-fast", "--beta-slow",
                          "--attention-factor", "--low-freq-factor", "--high-freq-factor"}) {
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
  }
}

}  // namespace
}  // namespace phasor

// The frequency ladder's checks and ReducedAngle against angles reduced with
// mpmath (50 digits; the values are written below, so no test needs mpmath).
#include "layers/frequencies.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/error.h"

namespace phasor {
namespace {

constexpr long double kTwoPi = 6.283185307179586476925286766559005768L;

struct Reduced {
  int64_t pos;
  long double freq;  // exact in long double, so that pos·freq is too
  long double want;  // pos·freq - 2π·round(pos·freq / 2π), from mpmath
};

// got - want reduced by 2π in long double: 0 if got is congruent to want.
long double Distance(double got, long double want) {
  const long double d = static_cast<long double>(got) - want;
  return fabsl(d - kTwoPi * rintl(d / kTwoPi));
}

TEST(FrequenciesTest, ReducedAngleMatchesMpmath) {
  const Reduced cases[] = {
      {7, 1, 0.716814692820413523075L},
      {16777217, 1, 0.106031133319803068558L},
      {10000000000, 1, -0.509231072165734782829L},
      {120000000000, 0.75L, 1.70010565768797343147L},
      {1099511627775, 1, 2.55934269625779831457L},
      {1099511627773, 0.75L, 1.99030334898824535516L},
      {1099511627775, 0x1p-10L, -0.666316265416325319991L},
      {1099511627775, 0x1p-30L, -0.159205071203918313437L},
  };
  for (const Reduced& c : cases) {
    const double got = ReducedAngle(c.pos, c.freq);
    // The double's rounding alone: half an ulp of an angle below 2^16 or of
    // one reduced to [-π, π].
    EXPECT_LE(Distance(got, c.want), 1e-15L) << "pos " << c.pos << " freq " << c.freq;
    if (static_cast<long double>(c.pos) * c.freq >= 0x1p16L) {
      EXPECT_LE(std::fabs(got), M_PI + 1e-15) << "pos " << c.pos;  // reduced to [-π, π]
    }
  }
  EXPECT_EQ(ReducedAngle(0, 0.5L), 0.0);
  EXPECT_EQ(ReducedAngle(123456789, 0), 0.0);
}

// A product past 2^39·π takes the remainder path: still an angle in [-π, π].
TEST(FrequenciesTest, ReducedAngleOfHugeProductsStaysInRange) {
  for (const long double freq : {3.0L, 1e6L, 1e300L}) {
    const double got = ReducedAngle(int64_t{1} << 40, freq);
    EXPECT_TRUE(std::isfinite(got)) << freq;
    EXPECT_LE(std::fabs(got), M_PI + 1e-15) << freq;
  }
}

TEST(FrequenciesTest, LadderChecksItsOptions) {
  EXPECT_THROW(CheckLadder(7, 10000, PeDenominator::kDModel), Error);
  EXPECT_THROW(CheckLadder(2, 10000, PeDenominator::kHalfMinusOne), Error);
  EXPECT_THROW(CheckLadder(8, 1.0, PeDenominator::kDModel), Error);
  EXPECT_NO_THROW(CheckLadder(4, 10000, PeDenominator::kHalfMinusOne));
  const std::vector<long double> exact = FrequencyLadderLong(8, 10000.0L, PeDenominator::kDModel);
  const std::vector<double> rounded = FrequencyLadder(8, 10000.0, PeDenominator::kDModel);
  ASSERT_EQ(exact.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(rounded[i], static_cast<double>(exact[i]));
    EXPECT_NEAR(static_cast<double>(exact[i]), std::pow(10.0, -static_cast<double>(i)), 1e-15);
  }
}

}  // namespace
}  // namespace phasor

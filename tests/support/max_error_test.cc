// The tests' error measure itself: it must fail on NaN and Inf, where a
// measure built on std::max(err, |a - b|) passes them.
#include "tests/support/max_error.h"

#include <gtest/gtest.h>

#include <limits>
#include <sstream>
#include <vector>

namespace phasor::testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::string Text(const MaxError& e) {
  std::ostringstream s;
  s << e;
  return s.str();
}

TEST(MaxErrorTest, FiniteValuesGiveTheLargestDifferenceAndWhere) {
  const std::vector<float> got = {1.0f, 2.0f, 3.5f, 4.0f};
  const std::vector<double> want = {1.0, 2.25, 3.0, 4.0};
  const MaxError e = MaxAbsError(got, want, 2);
  EXPECT_DOUBLE_EQ(e.value(), 0.5);
  EXPECT_EQ(e.index(), 2);
  EXPECT_TRUE(e <= 0.5);
  EXPECT_FALSE(e <= 0.49);
  EXPECT_TRUE(e > 0.49);
  EXPECT_EQ(Text(e), "0.5 at row 1, column 0: got 3.5, want 3");
}

// The check this measure exists for: std::max(0.0, NaN) is 0.0, so a running
// max passes an all-NaN output; the measure fails it, naming the position.
TEST(MaxErrorTest, NaNOrInfinityOnEitherSideFailsEveryComparison) {
  const std::vector<float> want(6, 0.5f);
  double naive = 0;
  const std::vector<float> all_nan(6, kNaN);
  for (size_t i = 0; i < all_nan.size(); ++i)
    naive = std::max(naive, double{std::fabs(all_nan[i] - want[i])});
  EXPECT_EQ(naive, 0.0);  // what the old measure saw

  const MaxError e = MaxAbsError(all_nan, want, 3);
  EXPECT_FALSE(e.finite());
  EXPECT_FALSE(e <= 1e30);
  EXPECT_FALSE(e > 0.0);
  EXPECT_EQ(e.index(), 0);
  EXPECT_EQ(Text(e), "not finite at row 0, column 0: got nan, want 0.5");

  for (float bad : {kNaN, kInf, -kInf}) {
    std::vector<float> got(want);
    got[4] = bad;
    const MaxError g = MaxAbsError(got, want);
    EXPECT_FALSE(g <= 1.0) << bad;
    EXPECT_EQ(g.index(), 4) << bad;
    const MaxError w = MaxAbsError(want, got);  // the reference side
    EXPECT_FALSE(w <= 1.0) << bad;
  }
}

TEST(MaxErrorTest, FirstNonFiniteValueIsKeptAndSizesMustMatch) {
  MaxError e;
  e.Add(0, 1.0, 1.5);
  e.Add(1, kNaN, 0.0);
  e.Add(2, 100.0, 0.0);  // larger, but after the NaN
  EXPECT_EQ(e.index(), 1);
  EXPECT_FALSE(e.finite());
  EXPECT_FALSE(MaxAbsError(std::vector<float>(3), std::vector<float>(4)) <= 1.0);
  EXPECT_TRUE(MaxAbsError(std::vector<float>(3), std::vector<float>(3)) <= 0.0);
}

}  // namespace
}  // namespace phasor::testing

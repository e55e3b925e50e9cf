// Tick values and their labels: round numbers, one notation, never "-0".
#include "tools/plot_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace phasor::cli::plot {
namespace {

TEST(PlotUtilTest, LabelsUseBinarySuffixesWhereExactAndNoExponent) {
  EXPECT_EQ(Label(0), "0");
  EXPECT_EQ(Label(5), "5");
  EXPECT_EQ(Label(256), "256");
  EXPECT_EQ(Label(-0.5), "-0.5");
  EXPECT_EQ(Label(1000), "1000");  // K is 1024, as --length 1K
  EXPECT_EQ(Label(1024), "1K");
  EXPECT_EQ(Label(1536), "1.5K");
  EXPECT_EQ(Label(20480), "20K");
  EXPECT_EQ(Label(20000), "20000");
  EXPECT_EQ(Label(1 << 20), "1M");
  EXPECT_EQ(Label(3 << 19), "1.5M");
  // Never a rounded count: --start 1M gives positions 1048576, 1048586, ...
  EXPECT_EQ(Label(1048586), "1048586");
  EXPECT_EQ(Label(1e6), "1000000");
  EXPECT_EQ(Label(0.0001), "0.0001");
  for (double v : {1e-7, 2e4, 1.5e4, 3.4e7, -1e-17}) {
    EXPECT_EQ(Label(v).find('e'), std::string::npos) << v << " -> " << Label(v);
  }
  EXPECT_EQ(BinaryCount(1024), "1K");
  EXPECT_EQ(BinaryCount(4194304), "4M");
  EXPECT_EQ(BinaryCount(1000), "1000");
}

TEST(PlotUtilTest, TicksAreRoundAndZeroIsExact) {
  const auto t = Ticks(0, 999, 8);
  ASSERT_GE(t.size(), 3u);
  const double step = t[1] - t[0];
  const double mantissa = step / std::pow(10.0, std::floor(std::log10(step)));
  EXPECT_TRUE(mantissa == 1 || mantissa == 2 || mantissa == 5) << step;
  for (double v : t) {
    EXPECT_EQ(std::fmod(v, step), 0.0) << v;
    EXPECT_EQ(Label(v).find('e'), std::string::npos) << v;
  }
  EXPECT_EQ(Label(-1e-17), "0");
  // A range through 0 in steps that do not add up exactly (0.1): 0 is 0.
  bool zero = false;
  for (double v : Ticks(-0.7, 0.7, 14)) {
    EXPECT_NE(Label(v), "-0") << v;
    zero = zero || v == 0.0;
  }
  EXPECT_TRUE(zero);
  // Counts from 1024 up are ticked in K and M, every label exact.
  EXPECT_EQ(Ticks(0, 99999, 5), (std::vector<double>{0, 20480, 40960, 61440, 81920}));
  for (double v : Ticks(0, 99999, 5)) EXPECT_EQ(Label(v).back(), v == 0 ? '0' : 'K') << v;
  for (double v : Ticks(1 << 20, (1 << 20) + 63, 8)) {
    EXPECT_EQ(Label(v), std::to_string(static_cast<int64_t>(v)));
  }
  // Ticks of [-3.1, 256] (a similarity curve's range).
  for (double v : Ticks(-3.1, 256, 6)) EXPECT_NE(Label(v), "-0") << v;
}

}  // namespace
}  // namespace phasor::cli::plot

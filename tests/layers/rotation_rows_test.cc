// The rotation engine on its own: any ladder, every pair layout, any amplitude,
// against the formula evaluated in long double; the same bits for any split
// of a call and any thread count; one range check naming the table.
#include "layers/rotation_rows.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/parallel.h"
#include "tests/support/max_error.h"

namespace phasor {
namespace {

constexpr int64_t k2p24 = int64_t{1} << 24;

// An irregular ladder (not the sinusoidal one): freq_i = 1.3·0.71^i·(1 + i/97)
// with a zero frequency last (its pair is (0, amplitude) at every position).
std::vector<long double> Ladder(int64_t half) {
  std::vector<long double> f(half);
  for (int64_t i = 0; i < half; ++i) f[i] = 1.3 * std::pow(0.71, i) * (1.0 + i / 97.0);
  if (half > 1) f[half - 1] = 0.0;
  return f;
}

// Where a layout puts pair i's first and second value in a row of width 2·half.
int64_t Slot(const RotationLayout& l, int64_t half, int64_t i, int which) {
  return l.slots == kernels::PairSlots::kAdjacent ? 2 * i + which : which * half + i;
}

// The formula in long double: the pair holds a·(sin, cos)(p·f), or a·(cos, sin).
testing::MaxError FormulaError(const RotationRows& rows, int64_t first, int64_t n,
                               const float* out) {
  const RotationOptions& o = rows.options();
  const int64_t half = static_cast<int64_t>(o.freq.size()), w = 2 * half;
  testing::MaxError err(w);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < half; ++i) {
      const long double phi = static_cast<long double>(first + j) * o.freq[i];
      const long double s = o.amplitude * sinl(phi), c = o.amplitude * cosl(phi);
      const int64_t a = Slot(o.layout, half, i, 0), b = Slot(o.layout, half, i, 1);
      err.Add(j * w + a, out[j * w + a], o.layout.cos_first ? c : s);
      err.Add(j * w + b, out[j * w + b], o.layout.cos_first ? s : c);
    }
  }
  return err;
}

struct Case {
  kernels::PairSlots slots;
  bool cos_first;
};

class RotationRowsExactTest : public ::testing::TestWithParam<Case> {};

// Every layout and mode, widths with and without a full vector of pairs, two
// amplitudes, near 0, near 2^24 and at random positions below it.
TEST_P(RotationRowsExactTest, MatchesLongDouble) {
  std::mt19937_64 rng(7);
  for (int64_t half : {5, 24, 64}) {
    for (double amplitude : {1.0, 1.37}) {
      for (PeMode mode : {PeMode::kOnTheFly, PeMode::kCached, PeMode::kAuto}) {
        RotationOptions o;
        o.freq = Ladder(half);
        o.amplitude = amplitude;
        o.layout = {GetParam().slots, GetParam().cos_first};
        o.mode = mode;
        o.max_len = 500;
        const RotationRows rows(o);
        const int64_t w = rows.width();
        std::vector<int64_t> firsts = {0, 77, 480};  // 480: across the table's end (auto)
        if (mode != PeMode::kCached) {
          firsts.push_back(k2p24 - 300);
          for (int k = 0; k < 4; ++k) firsts.push_back(static_cast<int64_t>(rng() % (k2p24 - 300)));
        }
        for (int64_t first : firsts) {
          const int64_t n = mode == PeMode::kCached ? 20 : 300;
          std::vector<float> out(n * w, NAN);
          rows.Fill(first, n, out.data());
          const testing::MaxError e = FormulaError(rows, first, n, out.data());
          EXPECT_LE(e, 2e-6 * amplitude)
              << "half " << half << " amplitude " << amplitude << " mode " << static_cast<int>(mode)
              << " first " << first << ": " << e;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, RotationRowsExactTest,
                         ::testing::Values(Case{kernels::PairSlots::kAdjacent, false},
                                           Case{kernels::PairSlots::kAdjacent, true},
                                           Case{kernels::PairSlots::kHalves, false},
                                           Case{kernels::PairSlots::kHalves, true}));

// A call's rows are the same bits whether made on one thread or two, in one
// call or in serial pieces at odd boundaries, read from the table or rotated.
TEST(RotationRowsTest, SameBitsForAnySplitAndThreadCount) {
  const int saved = NumThreads();
  RotationOptions o;
  o.freq = Ladder(40);
  o.amplitude = 0.9;
  o.layout = {kernels::PairSlots::kHalves, true};
  o.mode = PeMode::kOnTheFly;
  const RotationRows fly(o);
  o.mode = PeMode::kAuto;
  o.max_len = 3000;
  const RotationRows autom(o);
  const int64_t first = 1234, n = 9000, w = fly.width();
  std::vector<float> one(n * w), two(n * w), pieces(n * w), table(n * w);
  SetNumThreads(1);
  fly.Fill(first, n, one.data());
  SetNumThreads(2);
  fly.Fill(first, n, two.data());
  autom.Fill(first, n, table.data());
  int64_t j = 0;
  for (int64_t len : {1, 31, 33, 1000, 17}) {
    fly.FillSerial(first + j, len, nullptr, pieces.data() + j * w);
    j += len;
  }
  fly.FillSerial(first + j, n - j, nullptr, pieces.data() + j * w, kernels::Stores::kStreaming);
  SetNumThreads(saved);
  const size_t bytes = one.size() * sizeof(float);
  EXPECT_EQ(0, std::memcmp(one.data(), two.data(), bytes));
  EXPECT_EQ(0, std::memcmp(one.data(), pieces.data(), bytes));
  EXPECT_EQ(0, std::memcmp(one.data(), table.data(), bytes));
}

// ForEachTask hands out every position of every sequence exactly once, in
// ranges that start on a block boundary relative to first_pos.
TEST(RotationRowsTest, ForEachTaskCoversEveryRowOnce) {
  const int saved = NumThreads();
  SetNumThreads(2);
  for (int64_t batch : {1, 3}) {
    for (int64_t n : {1, 31, 32, 1000, 70000}) {
      for (int64_t width : {8, 512, 8192}) {
        std::vector<int> seen(batch * n, 0);
        RotationRows::ForEachTask(batch, 5, n, width, [&](int64_t b, int64_t p0, int64_t p1) {
          ASSERT_TRUE(b >= 0 && b < batch && p0 >= 5 && p0 < p1 && p1 <= 5 + n);
          EXPECT_EQ((p0 - 5) % RotationRows::kBlock, 0);
          for (int64_t p = p0; p < p1; ++p) ++seen[b * n + p - 5];
        });
        for (int64_t k = 0; k < batch * n; ++k) {
          ASSERT_EQ(seen[k], 1) << "batch " << batch << " n " << n << " width " << width;
        }
      }
    }
  }
  SetNumThreads(saved);
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const phasor::Error& e) {
    return e.what();
  }
  return "";
}

TEST(RotationRowsTest, OneRangeCheckNamingTheTable) {
  RotationOptions o;
  o.freq = Ladder(4);
  o.mode = PeMode::kCached;
  o.max_len = 100;
  o.table_name = "RoPE";
  const RotationRows rows(o);
  std::vector<float> out(8 * 200);
  EXPECT_EQ(ErrorOf([&] { rows.Fill(95, 10, out.data()); }),
            "position 100 is past the cached RoPE table (max_len 100); raise max_len or use mode "
            "auto or on_the_fly");
  EXPECT_EQ(ErrorOf([&] { rows.Fill(-1, 1, out.data()); }), "negative position -1");
  EXPECT_EQ(ErrorOf([&] { rows.Fill(0, -2, out.data()); }), "negative row count -2");
  o.mode = PeMode::kOnTheFly;
  const RotationRows fly(o);
  EXPECT_EQ(ErrorOf([&] { fly.Fill(RotationRows::kMaxPosition - 1, 2, out.data()); }),
            "position " + std::to_string(RotationRows::kMaxPosition) +
                " is past the largest supported (2^40)");
  EXPECT_EQ(ErrorOf([&] { fly.Fill(RotationRows::kMaxPosition - 1, 1, out.data()); }), "");
  EXPECT_EQ(ErrorOf([&] { fly.Fill(7, 0, nullptr); }), "");  // zero rows: nothing to check
}

TEST(RotationRowsTest, BadOptionsAreErrors) {
  RotationOptions o;
  o.freq = {1.0, NAN};
  o.table_name = "RoPE";
  EXPECT_NE(ErrorOf([&] { RotationRows r(o); }).find("RoPE frequency 1 must be finite"),
            std::string::npos);
  o.freq = {-0.5};
  EXPECT_NE(ErrorOf([&] { RotationRows r(o); }).find("RoPE frequency 0 must be finite and >= 0"),
            std::string::npos);
  o.freq = {0.5};
  o.amplitude = INFINITY;
  EXPECT_NE(ErrorOf([&] { RotationRows r(o); }).find("RoPE amplitude must be finite"),
            std::string::npos);
  o.amplitude = 1.0;
  o.max_len = -1;
  EXPECT_NE(ErrorOf([&] { RotationRows r(o); }).find("max_len must be >= 0"), std::string::npos);
  o.max_len = int64_t{1} << 40;
  EXPECT_NE(ErrorOf([&] { RotationRows r(o); }).find("a cached RoPE table of"), std::string::npos);
}

}  // namespace
}  // namespace phasor

// exp and its sums on every target this CPU has (IsaTest, isa_test.cc): within
// 2 ulp of exp in long double, the same bits where the targets fuse alike, the
// softmax weights in bfloat16 and AVX512-BF16's variant against avx512's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "engine/cpu.h"
#include "engine/kernels/gemm_bf16.h"
#include "engine/kernels/kernel_table.h"
#include "engine/kernels/vector_math.h"
#include "tests/support/kernel_test_util.h"

namespace phasor::kernels {
namespace {

using phasor::testing::OnEveryTarget;
using phasor::testing::Random;
using phasor::testing::SameBits;
using phasor::testing::TargetNames;

// exp on every target within 2 ulp of exp in long double: random arguments,
// and those at and around each step of exp's 2^n (t·log2(e) + 1/2 an integer)
// where a floor made another way would be the first to differ, negative and
// positive n; exactly 0 at -inf, NaN at NaN. avx2 and avx512 (fused
// multiply-adds) give the same bits as each other, portable (unfused) within
// an ulp of them.
TEST(IsaTest, ExpIsWithinTwoUlpOnEveryTargetAndTheSameBitsWhereFused) {
  std::vector<float> x = Random(203, 11, -100.0f, 100.0f);
  x[3] = -std::numeric_limits<float>::infinity();
  x[40] = std::numeric_limits<float>::infinity();
  x[77] = std::numeric_limits<float>::quiet_NaN();
  x[100] = 0.0f;
  for (int k = -126; k <= 128; ++k) {
    const float t = (static_cast<float>(k) - 0.5f) / 1.44269504088896341f;
    x.insert(x.end(), {std::nextafter(t, -1e9f), t, std::nextafter(t, 1e9f)});
  }
  const float shift = 1.5f;
  const auto ulp = [](float v) {
    return std::nextafter(std::fabs(v), std::numeric_limits<float>::infinity()) - std::fabs(v);
  };
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{7}, int64_t{8}, int64_t{9}, int64_t{16},
                    int64_t{17}, static_cast<int64_t>(x.size())}) {
    const auto results = OnEveryTarget([&] {
      std::vector<float> out(n);
      ExpShifted(x.data(), shift, n, out.data());
      for (int64_t j = 0; j < n; ++j) {
        const float d = x[j] - shift;
        if (std::isnan(d)) {
          EXPECT_TRUE(std::isnan(out[j])) << IsaName(ActiveIsa()) << " at " << j;
        } else if (x[j] == -std::numeric_limits<float>::infinity()) {
          EXPECT_EQ(out[j], 0.0f) << IsaName(ActiveIsa());
        } else if (d >= -87.33654f && d <= 88.0f) {  // outside: clamped (vector_math.h)
          const long double exact = std::exp(static_cast<long double>(d));
          EXPECT_LE(std::fabs(out[j] - exact), 2.0L * ulp(static_cast<float>(exact)))
              << IsaName(ActiveIsa()) << ": exp(" << d << ") gives " << out[j];
        }
      }
      return out;
    });
    const auto& portable = results.back();
    for (size_t t = 0; t + 1 < results.size(); ++t) {
      EXPECT_TRUE(SameBits(results[t], results[0]))
          << TargetNames() << ": target " << t << ", " << n;
      for (int64_t j = 0; j < n; ++j) {
        if (std::isnan(portable[j])) continue;
        EXPECT_LE(std::fabs(results[t][j] - portable[j]), ulp(portable[j]))
            << TargetNames() << ": target " << t << " at " << j;
      }
    }
  }
}

// ExpShiftedSum: the target's ExpShifted values and Sum's sum of them, bit for
// bit (the sum's 16 lanes split over two vectors on avx2, one on avx512), and
// the sum within float rounding of a double sum of exp.
TEST(IsaTest, ExpShiftedSumIsExpShiftedThenSumOnEveryTarget) {
  std::vector<float> x = Random(203, 12, -30.0f, 5.0f);
  x[5] = -std::numeric_limits<float>::infinity();
  for (int64_t n : {0, 1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 128, 203}) {
    double exact = 0.0;
    for (int64_t j = 0; j < n; ++j) exact += j == 5 ? 0.0 : std::exp(double{x[j]} - 1.5);
    OnEveryTarget([&] {
      std::vector<float> want(n), out(n);
      ExpShifted(x.data(), 1.5f, n, want.data());
      const float want_sum = Sum(want.data(), n);
      const float sum = ExpShiftedSum(x.data(), 1.5f, n, out.data());
      EXPECT_TRUE(SameBits(out, want)) << IsaName(ActiveIsa()) << " " << n;
      EXPECT_EQ(std::memcmp(&sum, &want_sum, sizeof sum), 0) << IsaName(ActiveIsa()) << " " << n;
      EXPECT_NEAR(sum, exact, 1e-5 * exact + 1e-30) << IsaName(ActiveIsa()) << " " << n;
      return 0;
    });
  }
  std::vector<float> with_nan(x.begin(), x.begin() + 40), out(40);
  with_nan[33] = std::numeric_limits<float>::quiet_NaN();
  OnEveryTarget([&] {
    EXPECT_TRUE(std::isnan(ExpShiftedSum(with_nan.data(), 1.5f, 40, out.data())))
        << IsaName(ActiveIsa());
    return 0;
  });
}

// Softmax weights in bfloat16: each value is exp rounded to bfloat16, at most
// one bfloat16 step from ToBf16 of the exact exp (the target's exp is within
// 6e-5 before the rounding); NaN kept, -inf masked to 0; the sum is that of the
// rounded values (in double here) to float32 rounding; the same bits for the
// same row wherever it sits.
TEST(IsaTest, ExpBf16SumRoundsExpOnEveryTarget) {
  std::vector<float> x = Random(203, 12, -30.0f, 3.0f);
  x[3] = -std::numeric_limits<float>::infinity();
  x[100] = 0.0f;
  std::vector<float> with_nan = x;
  with_nan[77] = std::numeric_limits<float>::quiet_NaN();
  for (int64_t n : {0, 1, 7, 8, 9, 15, 16, 17, 32, 33, 128, 203}) {
    OnEveryTarget([&] {
      std::vector<uint16_t> out(n, 0xFFFF), again(n + 3, 0xFFFF);
      const float sum = ExpBf16Sum(x.data(), 1.5f, n, out.data());
      std::vector<float> moved(x.begin(), x.begin() + n);
      moved.insert(moved.begin(), 3, 0.0f);
      EXPECT_EQ(ExpBf16Sum(moved.data() + 3, 1.5f, n, again.data() + 3), sum) << n;
      double want = 0.0;
      for (int64_t j = 0; j < n; ++j) {
        const uint16_t exact = ToBf16(static_cast<float>(std::exp(double{x[j]} - 1.5)));
        EXPECT_LE(std::abs(int{out[j]} - int{exact}), 1) << "n " << n << ", value " << j;
        EXPECT_EQ(out[j], again[j + 3]) << "n " << n << ", value " << j;
        want += FromBf16(out[j]);
      }
      EXPECT_NEAR(sum, want, 1e-6 * want) << n;
      if (n > 77) {
        EXPECT_TRUE(std::isnan(ExpBf16Sum(with_nan.data(), 1.5f, n, out.data())));
        EXPECT_TRUE(std::isnan(FromBf16(out[77])));
        EXPECT_EQ(out[3], 0);
      }
      return 0;
    });
  }
}

// The exp behind the bfloat16 weights is close to exact, not just within a
// step: over softmax's range, few values round other than the exact exp does
// (1/5 for the cubic coefficient 1/6 moves 7% of them).
TEST(IsaTest, ExpBf16SumIsTheRoundedExactExpForAlmostEveryValue) {
  const int64_t n = 4096;
  const std::vector<float> x = Random(n, 14, -20.0f, 0.0f);
  OnEveryTarget([&] {
    std::vector<uint16_t> out(n);
    ExpBf16Sum(x.data(), 0.0f, n, out.data());
    int64_t differ = 0;
    for (int64_t j = 0; j < n; ++j) {
      differ += out[j] != ToBf16(static_cast<float>(std::exp(double{x[j]})));
    }
    // Measured: 4 of 4096 (degree 4); 23 with its last coefficient 1/20.
    EXPECT_LE(differ, n / 256) << "values whose bfloat16 is not the exact exp's";
    return 0;
  });
}

// AVX512-BF16's ExpBf16 (vcvtneps2bf16 rounding) against the avx512 target's
// (rounding in integers): the same bits and sums, NaN, -inf, whole and masked
// vectors, and arguments around exp's clamp at -87.3, where a subnormal
// (which vcvtneps2bf16 flushes to zero) would first appear.
TEST(IsaTest, ExpBf16OfAvx512Bf16GivesTheAvx512TargetsBits) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "an x86-64 kernel";
#else
  if (!HasAvx512Bf16()) GTEST_SKIP() << "no AVX512-BF16 on this CPU";
  std::vector<float> x = Random(300, 15, -30.0f, 3.0f);
  for (int64_t j = 0; j < 100; ++j) x[j] = -87.5f + 0.006f * static_cast<float>(j);  // to -86.9
  x[150] = -std::numeric_limits<float>::infinity();
  x[151] = std::numeric_limits<float>::quiet_NaN();
  x[152] = 0.0f;
  for (int64_t n : {0, 1, 15, 16, 17, 31, 32, 33, 100, 150, 300}) {
    std::vector<uint16_t> want(n, 0xFFFF), got(n, 0xEEEE);
    const float want_sum = avx512::ExpBf16(x.data(), 0.0f, n, want.data());
    const float got_sum = avx512bf16::ExpBf16(x.data(), 0.0f, n, got.data());
    EXPECT_TRUE(SameBits(std::vector<float>{want_sum}, std::vector<float>{got_sum})) << n;
    for (int64_t j = 0; j < n; ++j) {
      EXPECT_EQ(got[j], want[j]) << "n " << n << ", value " << j << " = " << x[j];
    }
    if (n > 0) {
      EXPECT_EQ(got[0], 0x0080) << "exp(-87.5) clamped: 2^-126, the least normal";
    }
  }
#endif
}

}  // namespace
}  // namespace phasor::kernels

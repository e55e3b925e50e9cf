// The row kernels on every target this CPU has (IsaTest, isa_test.cc):
// scaling, filling and turning rows, RoPE's turn of heads, GELU and the row
// maximum, each the same bits on every target and checked against a naive twin.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <unsupported/Eigen/SpecialFunctions>
#include <vector>

#include "engine/aligned_allocator.h"
#include "engine/cpu.h"
#include "engine/kernels/kernel_table.h"
#include "engine/kernels/rotate_rows.h"
#include "engine/kernels/vector_math.h"
#include "tests/support/kernel_test_util.h"
#include "tests/support/naive_turn_rows.h"

namespace phasor::kernels {
namespace {

using phasor::testing::OnEveryTarget;
using phasor::testing::Random;
using phasor::testing::SameBits;
using phasor::testing::TargetNames;

// --- the row kernels: the same bits on every target ---------------------------

// Rows of n values at every offset from a 64-byte boundary, cached and
// streamed: the heads, tails and streamed lines of every target.
TEST(IsaTest, RowKernelsGiveTheSameBitsOnEveryTarget) {
  const int64_t kMax = 300;
  const std::vector<float> a = Random(kMax, 1), x = Random(kMax, 5), u = Random(kMax, 6);
  const std::vector<int32_t> ids = {3, 0, 7, 7, 1, 5, 2, 4, 6, 0, 1};
  const std::vector<float> table = Random(8 * kMax, 7);
  for (int64_t n : {0, 2, 6, 16, 18, 32, 46, 64, 80, 96, 126, 256}) {
    for (int64_t offset : {0, 1, 2, 8, 15, 16}) {
      for (Stores stores : {Stores::kCached, Stores::kStreaming}) {
        const auto results = OnEveryTarget([&] {
          AlignedFloats out(static_cast<size_t>(16 * kMax + 64), 0.0f);
          float* o = out.data() + offset;
          ScaleAddRow(x.data(), 0.5f, a.data(), n, o + 5 * kMax, {stores, {}});
          ScaleAddRow(nullptr, 0.5f, a.data(), n, o + 6 * kMax, {stores, {}});
          ScaleRow(x.data(), 1.0f, n, o + 7 * kMax, {stores, {}});
          ScaleRow(x.data(), -3.0f, n, o + 8 * kMax, {stores, {}});
          FillRow(0.25f, n, o + 9 * kMax, stores);
          // TurnRows: 3 rows from u, u + n, u + 2n (needs 3n <= kMax values),
          // n even, both slots, with and without token rows.
          const int64_t rows = 3;
          if (3 * n <= kMax && n % 2 == 0) {
            const Gather g1{table.data(), ids.data(), static_cast<int64_t>(ids.size()), 1.0f};
            const Gather g2{table.data(), ids.data(), static_cast<int64_t>(ids.size()), 2.0f};
            float* t = o + 10 * kMax;
            for (PairSlots slots : {PairSlots::kAdjacent, PairSlots::kHalves}) {
              for (const Gather* g : {static_cast<const Gather*>(nullptr), &g1, &g2}) {
                TurnRows({a.data(), u.data(), rows, n, slots, g, t, stores});
                t += rows * n;
              }
            }
          }
          StreamFence();
          return std::vector<float>(out.begin(), out.end());
        });
        for (size_t t = 0; t + 1 < results.size(); ++t) {
          EXPECT_TRUE(SameBits(results[t], results.back()))
              << IsaName(AvailableIsas()[t]) << " differs from portable, n " << n << " offset "
              << offset << " streaming " << (stores == Stores::kStreaming);
        }
      }
    }
  }
  // And TurnRows against its naive twin on every target.
  const int64_t n = 70, rows = 3;
  const Gather g{table.data(), ids.data(), static_cast<int64_t>(ids.size()), 0.5f};
  for (const auto& row : OnEveryTarget([&] {
         bool same = true;
         for (PairSlots slots : {PairSlots::kAdjacent, PairSlots::kHalves}) {
           for (const Gather* gather : {static_cast<const Gather*>(nullptr), &g}) {
             std::vector<float> out(rows * n), naive(rows * n);
             TurnRows({a.data(), u.data(), rows, n, slots, gather, out.data()});
             testing::NaiveTurnRows({a.data(), u.data(), rows, n, slots, gather, naive.data()});
             same = same && SameBits(out, naive);
           }
         }
         return same;
       })) {
    EXPECT_TRUE(row) << "targets:" << TargetNames();
  }
}

TEST(IsaTest, TurnPairsGivesTheSameBitsOnEveryTarget) {
  for (int64_t n : {0, 2, 4, 6, 8, 10, 16, 30, 64}) {
    std::vector<double> row(n), u(n);
    std::mt19937 rng(9);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (auto& v : row) v = dist(rng);
    for (auto& v : u) v = dist(rng);
    const auto results = OnEveryTarget([&] {
      std::vector<double> out(n), in_place = row;
      TurnPairs(row.data(), u.data(), n, out.data());
      TurnPairs(in_place.data(), u.data(), n, in_place.data());
      EXPECT_TRUE(SameBits(out, in_place)) << n;
      return out;
    });
    for (const auto& r : results) {
      EXPECT_TRUE(SameBits(r, results.back())) << n;
    }
  }
}

// RoPE's in-place turn of q and k heads: every target the same bits, each
// value within one float rounding of the rotation in double (the inputs are
// floats, so a·c − b·s in double is off by at most a few ulps of float).
TEST(IsaTest, RotateHeadsGivesTheSameBitsOnEveryTargetAndTheRotation) {
  for (const PairSlots slots : {PairSlots::kHalves, PairSlots::kAdjacent}) {
    for (int64_t half : {1, 3, 8, 16, 32, 35, 64}) {
      const int64_t heads = 5, stride = 2 * half + 3;  // a gap after each head stays put
      const std::vector<float> x = Random(heads * stride, 31, -4.0f, 4.0f);
      std::vector<float> c(half), s(half);
      for (int64_t i = 0; i < half; ++i) {
        c[i] = static_cast<float>(std::cos(0.37 * (i + 1)));
        s[i] = static_cast<float>(std::sin(0.37 * (i + 1)));
      }
      const auto results = OnEveryTarget([&] {
        std::vector<float> y = x;
        RotateHeads({y.data(), heads, stride, c.data(), s.data(), half, slots});
        return y;
      });
      for (const auto& r : results) EXPECT_TRUE(SameBits(r, results.back())) << half;
      const bool halves = slots == PairSlots::kHalves;
      for (int64_t h = 0; h < heads; ++h) {
        for (int64_t i = 0; i < half; ++i) {
          const int64_t ia = h * stride + (halves ? i : 2 * i);
          const int64_t ib = h * stride + (halves ? half + i : 2 * i + 1);
          const double a = x[ia], b = x[ib];
          EXPECT_NEAR(results[0][ia], a * c[i] - b * s[i], 4e-6) << h << " " << i;
          EXPECT_NEAR(results[0][ib], b * c[i] + a * s[i], 4e-6) << h << " " << i;
        }
        for (int64_t k = 2 * half; k < stride; ++k) {
          EXPECT_EQ(results[0][h * stride + k], x[h * stride + k]);
        }
      }
    }
  }
}

// GELU on every target against two independent computations: Eigen's own
// expression bit for bit where Eigen does not fuse its multiply-adds (x86-64
// built for the baseline CPU; aarch64 and -march=native builds fuse them), and
// erf in long double within a few ulp of the result's scale (1 + erf cancels
// for x < 0, so the bound is absolute there).
TEST(IsaTest, GeluErfIsEigensExpressionOnEveryTarget) {
  std::vector<float> x;
  for (int i = -20000; i <= 20000; ++i) x.push_back(static_cast<float>(i) * 5e-4f);  // [-10, 10]
  for (float v :
       {0.0f, -0.0f, 5.656854f, -5.656854f, 1e-30f, -1e-30f, 1e30f, -1e30f, 1e-40f,
        std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()}) {
    x.push_back(v);
  }
  const int64_t n = static_cast<int64_t>(x.size());
  Eigen::ArrayXf b = Eigen::Map<const Eigen::ArrayXf>(x.data(), n);
  b = 0.5f * b * (1.0f + (b * 0.70710678118654752440f).erf());
  for (int64_t len : {int64_t{0}, int64_t{1}, int64_t{7}, int64_t{9}, int64_t{17}, n}) {
    OnEveryTarget([&] {
      std::vector<float> out(len, NAN);
      GeluErf(x.data() + n - len, len, out.data());
      for (int64_t j = 0; j < len; ++j) {
        const float v = x[n - len + j];
#if !defined(__FMA__) && !defined(__ARM_FEATURE_FMA)
        const bool same = SameBits(std::vector<float>{out[j]}, std::vector<float>{b[n - len + j]});
        EXPECT_TRUE(same) << IsaName(ActiveIsa()) << ": x " << v << " gives " << out[j]
                          << ", Eigen " << b[n - len + j];
        if (!same) return 0;
#endif
        if (!std::isfinite(v)) continue;
        const long double exact =
            0.5L * v * (1.0L + std::erf(static_cast<long double>(v) / std::sqrt(2.0L)));
        // Measured: at most 1.1e-6, near x = -5.56 where 1 + erf cancels.
        EXPECT_LE(std::fabs(out[j] - exact), 2e-6L * std::max(1.0L, std::fabs(exact))) << v;
      }
      return 0;
    });
  }
  std::vector<float> with_nan = {1.0f, NAN, -2.0f};
  OnEveryTarget([&] {
    GeluErf(with_nan.data(), 3, with_nan.data());  // in place
    EXPECT_TRUE(std::isnan(with_nan[1]));
    return 0;
  });
}

TEST(IsaTest, MaxIsTheLargestValueOnEveryTarget) {
  std::vector<float> x = Random(203, 13, -50.0f, 50.0f);
  x[3] = -std::numeric_limits<float>::infinity();
  for (int64_t n : {0, 1, 7, 8, 9, 15, 16, 17, 33, 128, 203}) {
    std::vector<float> v(x.begin(), x.begin() + n);
    if (n > 5) v[n - 2] = 60.0f;  // the largest in the last vector's tail
    const float want =
        n == 0 ? -std::numeric_limits<float>::infinity() : *std::max_element(v.begin(), v.end());
    for (float got : OnEveryTarget([&] { return Max(v.data(), n); })) EXPECT_EQ(got, want) << n;
  }
}

}  // namespace
}  // namespace phasor::kernels

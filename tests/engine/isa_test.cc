// Every per-target kernel on every target this CPU has, against the portable
// target (the reference) and against naive twins: the row kernels and exp give
// the same bits on every target; the packed product gives the same bits on
// avx512 and avx2 (fused multiply-adds in k order) and stays within 1e-5 of
// portable's (a multiply and an add) and of a double sum; on each target any
// thread count gives the same bits. The whole suite also runs under
// PHASOR_ISA=avx2 and =portable (ctest phasor_tests_isa_*).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <unsupported/Eigen/SpecialFunctions>
#include <vector>

#include "engine/aligned_allocator.h"
#include "engine/cpu.h"
#include "engine/error.h"
#include "engine/kernels/attention.h"
#include "engine/kernels/gemm.h"
#include "engine/kernels/gemm_bf16.h"
#include "engine/kernels/kernel_table.h"
#include "engine/kernels/layer_norm.h"
#include "engine/kernels/rotate_rows.h"
#include "engine/kernels/vector_math.h"
#include "engine/parallel.h"
#include "tests/support/kernel_test_util.h"
#include "tests/support/naive_turn_rows.h"

namespace phasor::kernels {
namespace {

using phasor::testing::IsaGuard;
using phasor::testing::Random;
using phasor::testing::SameBits;

constexpr double kTol = 1e-5;  // |target - reference| <= kTol·(1 + |reference|)

// The first value where the two differ by more than kTol, or -1.
int64_t FirstFar(const std::vector<float>& got, const std::vector<double>& want) {
  for (size_t i = 0; i < got.size(); ++i) {
    if (!(std::abs(got[i] - want[i]) <= kTol * (1.0 + std::abs(want[i])))) {
      return static_cast<int64_t>(i);
    }
  }
  return -1;
}

// Runs f() once per target this CPU has; returns the results in the order of
// AvailableIsas() (portable last).
template <class F>
auto OnEveryTarget(F f) {
  IsaGuard guard;
  std::vector<decltype(f())> results;
  for (Isa isa : AvailableIsas()) {
    SetIsa(isa);
    results.push_back(f());
  }
  return results;
}

std::string Names() {
  std::string s;
  for (Isa isa : AvailableIsas()) s += std::string(" ") + IsaName(isa);
  return s;
}

TEST(IsaTest, PortableIsAlwaysAvailableAndLast) {
  const std::vector<Isa> isas = AvailableIsas();
  ASSERT_FALSE(isas.empty());
  EXPECT_EQ(isas.back(), Isa::kPortable);
  EXPECT_NE(std::find(isas.begin(), isas.end(), ActiveIsa()), isas.end());
}

TEST(IsaTest, UnknownOrMissingTargetIsAUsageErrorNamingWhatTheCpuHas) {
  IsaGuard guard;
  try {
    SetIsa("sse9");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("this CPU has"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("portable"), std::string::npos) << e.what();
  }
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2}) {
    const auto isas = AvailableIsas();
    if (std::find(isas.begin(), isas.end(), isa) != isas.end()) continue;
    EXPECT_THROW(SetIsa(IsaName(isa)), UsageError);
  }
  for (Isa isa : AvailableIsas()) {
    SetIsa(IsaName(isa));
    EXPECT_EQ(ActiveIsa(), isa);
  }
}

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
    EXPECT_TRUE(row) << "targets:" << Names();
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
      EXPECT_TRUE(SameBits(results[t], results[0])) << Names() << ": target " << t << ", " << n;
      for (int64_t j = 0; j < n; ++j) {
        if (std::isnan(portable[j])) continue;
        EXPECT_LE(std::fabs(results[t][j] - portable[j]), ulp(portable[j]))
            << Names() << ": target " << t << " at " << j;
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

// Keys into the score product's panels (PackKeyPanels, kernel
// transpose_panels) on every target: key j, column c of panel p at
// p·cols·32 + c·32 + j, zero past the last key, nothing written past the
// panels. Key counts on both sides of a panel and of avx512's 16-row blocks,
// widths on both sides of its 16 columns.
TEST(IsaTest, KeyPanelsFollowTheLayoutOnEveryTarget) {
  for (const auto& shape : {std::pair<int64_t, int64_t>{1, 1},
                            {15, 16},
                            {16, 17},
                            {31, 64},
                            {32, 64},
                            {33, 3},
                            {70, 33},
                            {100, 96}}) {
    const int64_t keys = shape.first, cols = shape.second;  // copies: a lambda uses them
    const int64_t ld = cols + 5, size = KeyPanelFloats(keys, cols);
    const std::vector<float> x = Random(keys * ld, static_cast<uint32_t>(keys + cols));
    OnEveryTarget([&] {
      std::vector<float> out(size + 7, NAN);
      PackKeyPanels(x.data(), ld, keys, cols, out.data());
      for (int64_t i = 0; i < size; ++i) {
        const int64_t p = i / (cols * 32), c = i % (cols * 32) / 32, j = p * 32 + i % 32;
        const float want = j < keys ? x[j * ld + c] : 0.0f;
        EXPECT_EQ(out[i], want) << IsaName(ActiveIsa()) << ": " << keys << " x " << cols << ", key "
                                << j << ", column " << c;
        if (out[i] != want) return 0;
      }
      for (int64_t i = size; i < size + 7; ++i)
        EXPECT_TRUE(std::isnan(out[i])) << IsaName(ActiveIsa());
      return 0;
    });
  }
}

// LayerNorm and AddLayerNorm (out apart, or over either input) give the same
// bits on every target: the same 16-lane sums in the same tree and the same
// steps per value. Widths on both sides of the vectors' 8 and 16 lanes, a row
// far from zero and a constant row; and every target within 2e-5 of the norm
// in double (the rows are of order 1 after it).
TEST(IsaTest, LayerNormGivesTheSameBitsOnEveryTarget) {
  for (int64_t n : {1, 7, 8, 15, 16, 17, 40, 512, 768, 1000}) {
    const int64_t rows = 4;
    std::vector<float> x = Random(rows * n, static_cast<uint32_t>(n), -5.0f, 5.0f);
    const std::vector<float> r = Random(rows * n, static_cast<uint32_t>(n) + 1, -2.0f, 2.0f);
    const std::vector<float> gamma = Random(n, static_cast<uint32_t>(n) + 2, 0.5f, 1.5f);
    const std::vector<float> beta = Random(n, static_cast<uint32_t>(n) + 3);
    for (int64_t j = 0; j < n; ++j) {
      x[n + j] += 1000.0f;    // row 1: far from zero
      x[2 * n + j] = 0.375f;  // row 2: constant, so beta
    }
    const NormParams p{gamma.data(), beta.data(), 1e-5f};
    std::vector<float> ref(rows * n), ref_add(rows * n);
    LayerNormNaive(x.data(), rows, n, p, ref.data());
    AddLayerNormNaive(x.data(), r.data(), rows, n, p, ref_add.data());
    const auto results = OnEveryTarget([&] {
      std::vector<float> y(rows * n, NAN), y_add(rows * n, NAN), into_x = x, into_r = r;
      LayerNorm(x.data(), rows, n, p, y.data());
      AddLayerNorm(x.data(), r.data(), rows, n, p, y_add.data());
      AddLayerNorm(into_x.data(), r.data(), rows, n, p, into_x.data());
      AddLayerNorm(x.data(), into_r.data(), rows, n, p, into_r.data());
      std::vector<float> in_place = x;
      LayerNorm(in_place.data(), rows, n, p, in_place.data());
      EXPECT_TRUE(SameBits(in_place, y)) << IsaName(ActiveIsa()) << " in place, n " << n;
      EXPECT_TRUE(SameBits(into_x, y_add)) << IsaName(ActiveIsa()) << " into x, n " << n;
      EXPECT_TRUE(SameBits(into_r, y_add)) << IsaName(ActiveIsa()) << " into r, n " << n;
      for (int64_t j = 0; j < rows * n; ++j) {
        EXPECT_NEAR(y[j], ref[j], 2e-5) << IsaName(ActiveIsa()) << " n " << n << " at " << j;
        EXPECT_NEAR(y_add[j], ref_add[j], 2e-5)
            << IsaName(ActiveIsa()) << " n " << n << " at " << j;
      }
      y.insert(y.end(), y_add.begin(), y_add.end());
      return y;
    });
    for (size_t t = 1; t < results.size(); ++t) {
      EXPECT_TRUE(SameBits(results[t], results[0])) << Names() << ": target " << t << ", n " << n;
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

// --- the packed product --------------------------------------------------------

struct Shape {
  int64_t rows, in, out;
};

TEST(IsaTest, PackedProductAgreesAcrossTargetsAndWithDoubleForAnyThreadCount) {
  for (const Shape& sh : {Shape{1, 3, 1}, Shape{5, 7, 6}, Shape{17, 64, 70}, Shape{64, 256, 96},
                          Shape{130, 128, 300}}) {
    const std::vector<float> x = Random(sh.rows * sh.in, 21);
    const float bound = 1.0f / std::sqrt(static_cast<float>(sh.in));
    const std::vector<float> w = Random(sh.out * sh.in, 22, -bound, bound);
    const std::vector<float> b = Random(sh.out, 23);
    const PackedWeights packed(w.data(), b.data(), sh.out, sh.in);
    std::vector<double> want(sh.rows * sh.out);
    for (int64_t r = 0; r < sh.rows; ++r) {
      for (int64_t j = 0; j < sh.out; ++j) {
        double sum = b[j];
        for (int64_t k = 0; k < sh.in; ++k) sum += double{x[r * sh.in + k]} * w[j * sh.in + k];
        want[r * sh.out + j] = std::max(sum, 0.0);
      }
    }
    const auto results = OnEveryTarget([&] {
      std::vector<float> y1(sh.rows * sh.out), y2(sh.rows * sh.out);
      SetNumThreads(1);
      PackedLinear(x.data(), sh.rows, packed, y1.data(), Activation::kRelu);
      SetNumThreads(2);
      PackedLinear(x.data(), sh.rows, packed, y2.data(), Activation::kRelu);
      EXPECT_TRUE(SameBits(y1, y2)) << IsaName(ActiveIsa()) << ": 1 and 2 threads differ";
      EXPECT_EQ(FirstFar(y1, want), -1) << IsaName(ActiveIsa()) << " against double";
      return y1;
    });
    const std::vector<Isa> isas = AvailableIsas();
    for (size_t t = 0; t < results.size(); ++t) {
      std::vector<double> portable(results.back().begin(), results.back().end());
      EXPECT_EQ(FirstFar(results[t], portable), -1) << IsaName(isas[t]) << " against portable";
      // FMA targets agree with each other bit for bit.
      if (isas[t] != Isa::kPortable && isas.front() != Isa::kPortable) {
        EXPECT_TRUE(SameBits(results[t], results.front()))
            << IsaName(isas[t]) << " differs from " << IsaName(isas.front());
      }
    }
  }
}

TEST(IsaTest, GemmPanelsAccumulatesAlikeOnEveryTarget) {
  const int64_t rows = 11, k = 40, n = 45, ldb = n + 5;
  const std::vector<float> a = Random(rows * k, 31), b = Random((k - 1) * ldb + n, 32);
  const std::vector<float> c0 = Random(rows * n, 33);
  std::vector<double> want(rows * n);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = c0[r * n + j];
      for (int64_t i = 0; i < k; ++i) sum += double{a[r * k + i]} * b[i * ldb + j];
      want[r * n + j] = sum;
    }
  }
  const auto results = OnEveryTarget([&] {
    std::vector<float> c = c0;
    PanelProduct p;
    p.a = a.data();
    p.lda = k;
    p.b = b.data();
    p.ldb = ldb;
    p.panel_stride = kGemmPanel;
    p.c = c.data();
    p.ldc = n;
    p.rows = rows;
    p.k = k;
    p.n = n;
    p.accumulate = true;
    GemmPanels(p);
    EXPECT_EQ(FirstFar(c, want), -1) << IsaName(ActiveIsa());
    return c;
  });
  const std::vector<Isa> isas = AvailableIsas();
  for (size_t t = 0; t + 1 < results.size(); ++t) {
    if (isas.front() != Isa::kPortable) {
      EXPECT_TRUE(SameBits(results[t], results.front())) << IsaName(isas[t]);
    }
  }
}

}  // namespace
}  // namespace phasor::kernels

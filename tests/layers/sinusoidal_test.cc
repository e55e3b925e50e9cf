// Sinusoidal PE against an independent long double evaluation of the formula.
#include "layers/sinusoidal.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <tuple>

#include "engine/error.h"
#include "engine/kernels/rotate_rows.h"
#include "engine/parallel.h"
#include "layers/block_starts.h"
#include "tests/support/max_error.h"
#include "tests/support/pe_reference.h"

namespace phasor {
namespace {

using testing::RefDenominator;
using testing::RefLayout;
using testing::RefPeRow;

// The contract: every value within 2e-6 of the exact formula below 2^24.
constexpr double kExact = 2e-6;
constexpr int64_t k2p24 = int64_t{1} << 24;

RefLayout Ref(PeLayout l) {
  return l == PeLayout::kInterleaved ? RefLayout::kInterleaved : RefLayout::kSplit;
}
RefDenominator Ref(PeDenominator d) {
  return d == PeDenominator::kDModel ? RefDenominator::kDModel : RefDenominator::kHalfMinusOne;
}

// Error of rows [n, d] for positions first.. against the reference; rows are
// numbered from 0 (position first).
testing::MaxError PeError(const SinusoidalEncoding& pe, int64_t first, int64_t n,
                          const float* rows) {
  const auto& o = pe.options();
  testing::MaxError err(o.d_model);
  for (int64_t j = 0; j < n; ++j) {
    const auto ref = RefPeRow(first + j, o.d_model, o.base, Ref(o.layout), Ref(o.denominator));
    for (int64_t k = 0; k < o.d_model; ++k)
      err.Add(j * o.d_model + k, rows[j * o.d_model + k], ref[k]);
  }
  return err;
}

TEST(SinusoidalTest, WorkedVectorDModel8) {
  SinusoidalOptions o;
  o.d_model = 8;
  o.mode = PeMode::kOnTheFly;
  SinusoidalEncoding pe(o);
  std::vector<float> rows(2 * 8);
  pe.Fill(0, 2, rows.data());
  // The published vector for position 1, to the digits shown there.
  const double expected[8] = {0.841, 0.540, 0.0998, 0.995, 0.0100, 0.99995, 0.0010, 0.9999995};
  const double digits[8] = {5e-4, 5e-4, 5e-5, 5e-4, 5e-5, 5e-6, 5e-5, 5e-8};
  for (int k = 0; k < 8; ++k) {
    EXPECT_NEAR(rows[8 + k], expected[k], digits[k] + 6e-8) << "dimension " << k;
  }
  // Position 0: sin 0 = 0, cos 0 = 1 in every pair.
  for (int k = 0; k < 8; ++k) EXPECT_EQ(rows[k], k % 2 ? 1.0f : 0.0f);
}

TEST(SinusoidalTest, FrequenciesOfTheWorkedExample) {
  SinusoidalOptions o;
  o.d_model = 8;
  o.mode = PeMode::kOnTheFly;
  SinusoidalEncoding pe(o);
  const double expected[4] = {1.0, 0.1, 0.01, 0.001};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(pe.freq()[i], expected[i], 1e-15 * expected[i] * 10);
}

// mode × layout × denominator.
class SinusoidalExactTest
    : public ::testing::TestWithParam<std::tuple<PeMode, PeLayout, PeDenominator>> {};

TEST_P(SinusoidalExactTest, MatchesLongDoubleAtListedAndRandomPositions) {
  const auto [mode, layout, den] = GetParam();
  std::mt19937_64 rng(42);
  // A table of 2^24 rows is affordable at d_model 4 only; the wider model
  // checks the table up to 10^6 + 1.
  for (int64_t d : {int64_t{4}, int64_t{64}}) {
    SinusoidalOptions o;
    o.d_model = d;
    o.layout = layout;
    o.denominator = den;
    o.mode = mode;
    const int64_t limit = (mode == PeMode::kCached && d > 4) ? 1000001 : k2p24;
    // auto: a small table, so both the table and the rotation are exercised.
    o.max_len = mode == PeMode::kCached ? limit : (mode == PeMode::kAuto ? 2048 : 0);
    SinusoidalEncoding pe(o);
    std::vector<int64_t> positions = {0, 1, 1023, 1024, 2047, 2048, 1000000, k2p24 - 1};
    std::uniform_int_distribution<int64_t> any(0, limit - 1);
    for (int k = 0; k < 40; ++k) positions.push_back(any(rng));
    std::vector<float> row(d);
    for (int64_t p : positions) {
      if (p >= limit) continue;
      pe.Fill(p, 1, row.data());
      const testing::MaxError err = PeError(pe, p, 1, row.data());
      EXPECT_LE(err, kExact) << "d_model " << d << " position " << p;
      if (p == k2p24 - 1) {
        std::printf("max abs error at 2^24-1: %-10s %-11s %-14s d_model %-3lld %.3g\n",
                    ToString(mode), ToString(layout), ToString(den), static_cast<long long>(d),
                    err.value());
      }
    }
    // A long run ending at 2^24 - 1 crosses many blocks and anchors.
    const int64_t n = 3000;
    std::vector<float> rows(n * d);
    pe.Fill(limit - n, n, rows.data());
    EXPECT_LE(PeError(pe, limit - n, n, rows.data()), kExact) << "d_model " << d;
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllModes, SinusoidalExactTest,
    ::testing::Combine(::testing::Values(PeMode::kCached, PeMode::kOnTheFly, PeMode::kAuto),
                       ::testing::Values(PeLayout::kInterleaved, PeLayout::kSplit),
                       ::testing::Values(PeDenominator::kDModel, PeDenominator::kHalfMinusOne)),
    [](const auto& info) {
      return std::string(ToString(std::get<0>(info.param))) + "_" +
             ToString(std::get<1>(info.param)) + "_" + ToString(std::get<2>(info.param));
    });

// Bases across [2, 1e7] and widths from 2 to 65536.
TEST(SinusoidalTest, ExactForExtremeBasesAndWidths) {
  for (double base : {2.0, 10.0, 10000.0, 1e7}) {
    for (int64_t d : {int64_t{2}, int64_t{6}, int64_t{510}, int64_t{65536}}) {
      for (PeDenominator den : {PeDenominator::kDModel, PeDenominator::kHalfMinusOne}) {
        if (den == PeDenominator::kHalfMinusOne && d < 4) continue;
        SinusoidalOptions o;
        o.d_model = d;
        o.base = base;
        o.denominator = den;
        o.mode = PeMode::kOnTheFly;
        SinusoidalEncoding pe(o);
        const int64_t n = d > 1000 ? 3 : 40;
        std::vector<float> rows(n * d);
        for (int64_t first : {int64_t{0}, int64_t{123456}, k2p24 - n}) {
          pe.Fill(first, n, rows.data());
          EXPECT_LE(PeError(pe, first, n, rows.data()), kExact)
              << "base " << base << " d_model " << d << " first " << first;
        }
      }
    }
  }
}

// Shifting a position by k rotates pair i by k·freq_i: a 2x2 map that depends
// on k alone, made here in long double from the formula's frequencies.
TEST(SinusoidalTest, ShiftIsARotation) {
  for (PeLayout layout : {PeLayout::kInterleaved, PeLayout::kSplit}) {
    SinusoidalOptions o;
    o.d_model = 64;
    o.layout = layout;
    o.mode = PeMode::kOnTheFly;
    SinusoidalEncoding pe(o);
    const int64_t d = o.d_model, half = d / 2;
    std::vector<float> a(d), b(d);
    for (int64_t k : {1, 7, 1000, 123457}) {
      for (int64_t p : {0, 3, 999, 65536, 5000000}) {
        pe.Fill(p, 1, a.data());
        pe.Fill(p + k, 1, b.data());
        for (int64_t i = 0; i < half; ++i) {
          const long double phi =
              static_cast<long double>(k) * testing::RefFreq(i, d, o.base, RefDenominator::kDModel);
          const int64_t si = layout == PeLayout::kInterleaved ? 2 * i : i;
          const int64_t ci = layout == PeLayout::kInterleaved ? 2 * i + 1 : half + i;
          const long double s = a[si], c = a[ci];
          const long double rs = s * cosl(phi) + c * sinl(phi);
          const long double rc = c * cosl(phi) - s * sinl(phi);
          EXPECT_NEAR(static_cast<double>(rs), b[si], 1e-5)
              << "k " << k << " p " << p << " i " << i;
          EXPECT_NEAR(static_cast<double>(rc), b[ci], 1e-5)
              << "k " << k << " p " << p << " i " << i;
        }
      }
    }
  }
}

TEST(SinusoidalTest, ValuesStayInUnitRange) {
  SinusoidalOptions o;
  o.d_model = 128;
  o.mode = PeMode::kOnTheFly;
  SinusoidalEncoding pe(o);
  const int64_t n = 5000;
  std::vector<float> rows(n * o.d_model);
  for (int64_t first : {int64_t{0}, int64_t{10000000}}) {
    pe.Fill(first, n, rows.data());
    for (float v : rows) {
      ASSERT_LE(v, 1.0f);
      ASSERT_GE(v, -1.0f);
    }
  }
}

TEST(SinusoidalTest, CachedEqualsOnTheFly) {
  SinusoidalOptions o;
  o.d_model = 96;
  o.max_len = 20000;
  o.mode = PeMode::kCached;
  SinusoidalEncoding cached(o);
  o.mode = PeMode::kOnTheFly;
  SinusoidalEncoding fly(o);
  const int64_t n = 20000;
  std::vector<float> a(n * o.d_model), b(n * o.d_model);
  cached.Fill(0, n, a.data());
  fly.Fill(0, n, b.data());
  for (size_t k = 0; k < a.size(); ++k) ASSERT_NEAR(a[k], b[k], kExact) << "value " << k;
}

// The two layouts run different kernels (the interleaved one rotates from a
// half-size table and builds its factors in registers, the split one reads
// full tables) on the same block starts, with the same arithmetic: their
// values agree bit for bit.
TEST(SinusoidalTest, InterleavedAndSplitLayoutsAgreeBitForBit) {
  for (int64_t d : {34, 512}) {
    SinusoidalOptions o;
    o.d_model = d;
    o.mode = PeMode::kOnTheFly;
    SinusoidalEncoding inter(o);
    o.layout = PeLayout::kSplit;
    SinusoidalEncoding split(o);
    const int64_t n = 2500, first = 1000;  // crosses anchors and block starts
    std::vector<float> x(n * d), y(n * d);
    inter.Fill(first, n, x.data());
    split.Fill(first, n, y.data());
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = 0; i < d / 2; ++i) {
        ASSERT_EQ(x[j * d + 2 * i], y[j * d + i]) << "d " << d << " row " << j << " pair " << i;
        ASSERT_EQ(x[j * d + 2 * i + 1], y[j * d + d / 2 + i]) << "d " << d << " row " << j;
      }
    }
  }
}

TEST(SinusoidalTest, DirectBaselineIsExact) {
  SinusoidalOptions o;
  o.d_model = 64;
  o.layout = PeLayout::kSplit;
  o.mode = PeMode::kOnTheFly;
  SinusoidalEncoding pe(o);
  const int64_t n = 50;
  std::vector<float> rows(n * o.d_model);
  pe.FillDirect(k2p24 - n, n, nullptr, rows.data());
  EXPECT_LE(PeError(pe, k2p24 - n, n, rows.data()), kExact);
}

// Rows [first, first + n) from Fill on one thread; on two they must be the same bits.
std::vector<float> FillOnOneAndTwoThreads(const SinusoidalEncoding& pe, int64_t first, int64_t n) {
  std::vector<float> one(n * pe.d_model()), two(n * pe.d_model());
  SetNumThreads(1);
  pe.Fill(first, n, one.data());
  SetNumThreads(2);
  pe.Fill(first, n, two.data());
  SetNumThreads(0);
  EXPECT_EQ(0, std::memcmp(one.data(), two.data(), one.size() * sizeof(float))) << first;
  return one;
}

// FillSerial of [first, first + n) in pieces of the given lengths, then the
// rest; src (rows for all n positions) may be null.
std::vector<float> FillInPieces(const SinusoidalEncoding& pe, int64_t first, int64_t n,
                                const RowSource* src, std::initializer_list<int64_t> lengths,
                                kernels::Stores stores = kernels::Stores::kCached) {
  std::vector<float> out(n * pe.d_model());
  int64_t j = 0;
  const auto piece = [&](int64_t len) {
    RowSource shifted;
    if (src) shifted = {src->table, src->ids + j, src->scale};
    pe.FillSerial(first + j, len, src ? &shifted : nullptr, out.data() + j * pe.d_model(), stores);
    j += len;
  };
  for (int64_t len : lengths) piece(len);
  piece(n - j);
  return out;
}

// Rows do not depend on the thread count or on how a range is split.
TEST(SinusoidalTest, IdenticalForOneAndTwoThreadsAndAnySplit) {
  for (PeMode mode : {PeMode::kOnTheFly, PeMode::kAuto}) {
    SinusoidalOptions o;
    o.d_model = 256;
    o.mode = mode;
    o.max_len = 3000;
    SinusoidalEncoding pe(o);
    const int64_t n = 10000, first = 777;
    const std::vector<float> one = FillOnOneAndTwoThreads(pe, first, n);
    // Serial pieces at odd boundaries, and streaming stores: the same bits.
    const std::vector<float> split =
        FillInPieces(pe, first, n, nullptr, {1, 15, 17, 1000, 1023, 3});
    EXPECT_EQ(0, std::memcmp(one.data(), split.data(), one.size() * sizeof(float)));
    const std::vector<float> streamed =
        FillInPieces(pe, first, n, nullptr, {33, 1000, 3}, kernels::Stores::kStreaming);
    EXPECT_EQ(0, std::memcmp(one.data(), streamed.data(), one.size() * sizeof(float)));
  }
}

// The same across the rows where block starts take a new exact row (every
// BlockStarts::kGroup·kSpan blocks) and near the largest position, with a
// token source added: one thread, two, and serial pieces at odd boundaries.
TEST(SinusoidalTest, IdenticalAcrossExactRowsAndFarPositions) {
  SinusoidalOptions o;
  o.d_model = 64;
  o.mode = PeMode::kOnTheFly;
  const SinusoidalEncoding pe(o);
  const int64_t group_rows = BlockStarts::kGroup * BlockStarts::kSpan * SinusoidalEncoding::kBlock;
  const int64_t n = 9000, vocab = 50;
  std::vector<float> table(vocab * o.d_model);
  for (size_t k = 0; k < table.size(); ++k) table[k] = static_cast<float>(k % 97) * 0.01f;
  std::vector<int32_t> ids(n);
  for (int64_t j = 0; j < n; ++j) ids[j] = static_cast<int32_t>((j * 7) % vocab);
  for (const int64_t first : {3 * group_rows - 4321, SinusoidalEncoding::kMaxPosition - n}) {
    FillOnOneAndTwoThreads(pe, first, n);
    // With token rows (one output row is one PE row plus its token row): whole and in pieces.
    const RowSource src{table.data(), ids.data(), 1.0f};
    const std::vector<float> whole = FillInPieces(pe, first, n, &src, {});
    const std::vector<float> split = FillInPieces(pe, first, n, &src, {5, 4321, 17, 1});
    EXPECT_EQ(0, std::memcmp(whole.data(), split.data(), whole.size() * sizeof(float))) << first;
  }
}

TEST(SinusoidalTest, BadOptionsAreErrors) {
  const auto make = [](int64_t d, double base, PeDenominator den) {
    SinusoidalOptions o;
    o.d_model = d;
    o.base = base;
    o.denominator = den;
    o.mode = PeMode::kOnTheFly;
    SinusoidalEncoding pe(o);
  };
  EXPECT_THROW(make(7, 10000, PeDenominator::kDModel), Error);
  EXPECT_THROW(make(0, 10000, PeDenominator::kDModel), Error);
  EXPECT_THROW(make(-2, 10000, PeDenominator::kDModel), Error);
  EXPECT_THROW(make(2, 10000, PeDenominator::kHalfMinusOne), Error);
  EXPECT_THROW(make(8, 1.0, PeDenominator::kDModel), Error);
  EXPECT_THROW(make(8, 0.5, PeDenominator::kDModel), Error);
  EXPECT_THROW(make(8, std::nan(""), PeDenominator::kDModel), Error);
  EXPECT_THROW(make(8, INFINITY, PeDenominator::kDModel), Error);
  EXPECT_NO_THROW(make(2, 2.0, PeDenominator::kDModel));
  EXPECT_NO_THROW(make(4, 10000, PeDenominator::kHalfMinusOne));
  try {
    make(7, 10000, PeDenominator::kDModel);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("7"), std::string::npos) << e.what();
  }
}

TEST(SinusoidalTest, CachedPositionPastTableIsAnError) {
  SinusoidalOptions o;
  o.d_model = 16;
  o.max_len = 100;
  o.mode = PeMode::kCached;
  SinusoidalEncoding pe(o);
  std::vector<float> rows(16 * 200, -7.0f);
  EXPECT_NO_THROW(pe.Fill(0, 100, rows.data()));
  try {
    pe.Fill(50, 51, rows.data());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("position 100"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("max_len 100"), std::string::npos) << e.what();
  }
  EXPECT_THROW(pe.Fill(-1, 1, rows.data()), Error);
  // Auto mode goes past the table instead.
  o.mode = PeMode::kAuto;
  SinusoidalEncoding auto_pe(o);
  EXPECT_NO_THROW(auto_pe.Fill(50, 150, rows.data()));
  EXPECT_LE(PeError(auto_pe, 50, 150, rows.data()), kExact);
}

TEST(SinusoidalTest, ZeroRowsIsANoOp) {
  SinusoidalOptions o;
  o.d_model = 8;
  SinusoidalEncoding pe(o);
  EXPECT_NO_THROW(pe.Fill(0, 0, nullptr));
}

}  // namespace
}  // namespace phasor

// Block-start rows against sin and cos evaluated in long double, and the
// properties the rotation relies on: a row depends on q alone.
#include "layers/block_starts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "engine/kernels/rotate_rows.h"
#include "engine/tensor.h"
#include "layers/frequencies.h"

namespace phasor {
namespace {

// The exact row of block q: (sin, cos)(q·block·freq_i), the angle in long double.
std::vector<long double> ExactRow(const std::vector<long double>& freq, int64_t block, int64_t q) {
  std::vector<long double> row(2 * freq.size());
  for (size_t i = 0; i < freq.size(); ++i) {
    const long double angle = static_cast<long double>(q * block) * freq[i];
    row[2 * i] = sinl(angle);
    row[2 * i + 1] = cosl(angle);
  }
  return row;
}

TEST(BlockStartsTest, RowsAreExactAcrossAnchorsAndGroups) {
  const std::vector<long double> freq = FrequencyLadderLong(64, 10000.0L, PeDenominator::kDModel);
  const int64_t block = 16;
  const BlockStarts starts(freq, block);
  const int64_t group = BlockStarts::kGroup * BlockStarts::kSpan;  // blocks per exact row
  std::vector<int64_t> qs = {0, 1, 31, 32, 33, group - 1, group, group + 1, 5 * group + 777};
  for (int64_t q = 0; q < 3 * group; q += 37) qs.push_back(q);
  qs.push_back((int64_t{1} << 24) / block - 1);  // the last block below position 2^24
  // Far blocks, up to the last one below the largest position (2^40).
  for (const int64_t far : {int64_t{1} << 30, (int64_t{1} << 33) + 12345, (int64_t{1} << 36) - 1,
                            int64_t{120000000000} / block + 5, (int64_t{1} << 40) / block - 1}) {
    qs.push_back(far);
  }
  for (const int64_t q : qs) {
    const double* row = starts.Row(q);
    const auto want = ExactRow(freq, block, q);
    // A few double roundings of the values; the long double rounding of the
    // reference's angle and of the exact row's (half an ulp of q·block radians
    // each at most: the largest frequency is 1); and the double rounding of
    // angles below 2^16 rad, which sin and cos reduce (ReducedAngle).
    const long double angle = static_cast<long double>(q * block);
    const long double tolerance = 1e-14L + 0x1p-63L * angle + 0x1p-52L * std::min(angle, 0x1p16L);
    for (size_t k = 0; k < want.size(); ++k) {
      ASSERT_NEAR(static_cast<long double>(row[k]), want[k], tolerance) << "q " << q << " k " << k;
    }
  }
}

// A thread's kept rows belong to one set of tables: a wider object after a
// narrower one, tables made again for other frequencies, and an object made
// where another was destroyed each get their own rows.
TEST(BlockStartsTest, KeptRowsAreNotMistakenForAnothersTables) {
  const std::vector<long double> narrow = FrequencyLadderLong(8, 10000.0L, PeDenominator::kDModel);
  const std::vector<long double> wide = FrequencyLadderLong(64, 100.0L, PeDenominator::kDModel);
  const int64_t q = 1234;
  const auto expect_exact = [&](const BlockStarts& s, const std::vector<long double>& freq,
                                int64_t block) {
    const double* row = s.Row(q);
    const auto want = ExactRow(freq, block, q);
    for (size_t k = 0; k < want.size(); ++k) {
      ASSERT_NEAR(static_cast<long double>(row[k]), want[k], 1e-11L) << "k " << k;
    }
  };
  BlockStarts a(narrow, 16);
  expect_exact(a, narrow, 16);
  {
    const BlockStarts b(wide, 16);  // wider: the thread's rows grow
    expect_exact(b, wide, 16);
  }
  a.Init(wide, 8);  // the same object, other tables
  expect_exact(a, wide, 8);
  auto c = std::make_unique<BlockStarts>(narrow, 16);
  expect_exact(*c, narrow, 16);
  c.reset();
  c = std::make_unique<BlockStarts>(narrow, 4);  // perhaps at the same address
  expect_exact(*c, narrow, 4);
}

// Whichever order blocks are asked for, and with another object's rows asked
// for in between on the same thread, a block's row has the same bits.
TEST(BlockStartsTest, RowDependsOnTheBlockAlone) {
  const std::vector<long double> freq = FrequencyLadderLong(40, 500.0L, PeDenominator::kDModel);
  const BlockStarts starts(freq, 16), other(freq, 8);
  const int64_t n = 2 * starts.half();
  const int64_t blocks = 3 * BlockStarts::kGroup * BlockStarts::kSpan;
  std::vector<double> in_order(blocks * n);
  for (int64_t q = 0; q < blocks; ++q) std::memcpy(&in_order[q * n], starts.Row(q), n * 8);
  std::mt19937 rng(3);
  for (int k = 0; k < 3000; ++k) {
    const int64_t q = static_cast<int64_t>(rng() % blocks);
    if (k % 3 == 0) other.Row(q);
    ASSERT_EQ(0, std::memcmp(&in_order[q * n], starts.Row(q), n * 8)) << "block " << q;
  }
}

// The double turn of pairs, against the same rotation per pair in long double
// (from the same rounded inputs), for lengths that end inside and outside the
// vector code, in place or not.
TEST(BlockStartsTest, TurnPairsTurnsEachPair) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> angle(-3.2, 3.2);
  for (int64_t n : {2, 6, 8, 10, 512, 1030}) {
    AlignedDoubles row(n), u(n), out(n);
    std::vector<long double> want(n);
    for (int64_t i = 0; i < n / 2; ++i) {
      const double theta = angle(rng), phi = angle(rng);
      row[2 * i] = std::sin(theta);
      row[2 * i + 1] = std::cos(theta);
      u[2 * i] = std::cos(phi);
      u[2 * i + 1] = std::sin(phi);
      const long double st = row[2 * i], ct = row[2 * i + 1], cp = u[2 * i], sp = u[2 * i + 1];
      want[2 * i] = st * cp + ct * sp;      // sin(θ+φ)
      want[2 * i + 1] = ct * cp - st * sp;  // cos(θ+φ)
    }
    kernels::TurnPairs(row.data(), u.data(), n, out.data());
    for (int64_t k = 0; k < n; ++k) {
      ASSERT_NEAR(static_cast<long double>(out[k]), want[k], 1e-15L) << "n " << n << " k " << k;
    }
    // Pair by pair (the scalar code) gives the bits of the whole row (the
    // vector code where there is one); in place too.
    for (int64_t k = 0; k < n; k += 2) {
      double pair[2];
      kernels::TurnPairs(row.data() + k, u.data() + k, 2, pair);
      ASSERT_EQ(0, std::memcmp(pair, out.data() + k, sizeof pair)) << "n " << n << " k " << k;
    }
    kernels::TurnPairs(row.data(), u.data(), n, row.data());
    ASSERT_EQ(0, std::memcmp(row.data(), out.data(), n * sizeof(double)));
  }
}

}  // namespace
}  // namespace phasor

// models/pooling: each pooling against a naive twin written here in double,
// over sequences of several rows, and a NaN in any row of a sequence reaching
// what is pooled from it (the max and the mean; the first row only if it is
// there) and nothing else.
#include "models/pooling.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace phasor {
namespace {

constexpr double kTol = 1e-6;  // max abs error against double; outputs are O(1)

constexpr int64_t kD = 5;
const std::vector<int64_t> kOffsets = {0, 4, 7};  // two sequences: rows 0..3, 4..6

std::vector<float> Rows(uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> v(static_cast<size_t>(kOffsets.back() * kD));
  for (float& x : v) x = dist(rng);
  return v;
}

// The naive twin, in double: NaN wherever a row pooled from holds one (a NaN
// compares false, so the max keeps it explicitly).
std::vector<double> Naive(const std::vector<float>& rows, Pooling pooling) {
  const int64_t batch = static_cast<int64_t>(kOffsets.size()) - 1;
  std::vector<double> out(static_cast<size_t>(batch * kD));
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t first = kOffsets[b], n = kOffsets[b + 1] - first;
    for (int64_t k = 0; k < kD; ++k) {
      double y = rows[first * kD + k];
      for (int64_t j = 1; j < n && pooling != Pooling::kCls; ++j) {
        const double v = rows[(first + j) * kD + k];
        y = pooling == Pooling::kMean ? y + v : (std::isnan(v) || v > y ? v : y);
      }
      out[b * kD + k] = pooling == Pooling::kMean ? y / static_cast<double>(n) : y;
    }
  }
  return out;
}

void ExpectPooled(const std::vector<float>& rows, Pooling pooling, const std::string& what) {
  const int64_t batch = static_cast<int64_t>(kOffsets.size()) - 1;
  std::vector<float> got(static_cast<size_t>(batch * kD));
  PoolRows(rows.data(), kOffsets.data(), batch, kD, {pooling, false}, got.data());
  const std::vector<double> want = Naive(rows, pooling);
  for (size_t i = 0; i < got.size(); ++i) {
    const std::string where =
        what + ", sequence " + std::to_string(i / kD) + ", column " + std::to_string(i % kD);
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << where << ": got " << got[i] << ", expected NaN";
    } else {
      EXPECT_FALSE(std::isnan(got[i])) << where << ": got NaN, expected " << want[i];
      EXPECT_NEAR(got[i], want[i], kTol) << where;
    }
  }
}

// The pooling, and the row of sequence 0 that holds a NaN in column 2.
using NanCase = std::tuple<Pooling, int64_t>;

class PoolingNanTest : public ::testing::TestWithParam<NanCase> {};

TEST_P(PoolingNanTest, ANanInAnyRowReachesThePooledValue) {
  const auto [pooling, nan_row] = GetParam();
  std::vector<float> rows = Rows(7);
  rows[nan_row * kD + 2] = std::numeric_limits<float>::quiet_NaN();
  // Larger values after the NaN, in its column: they must not replace it.
  for (int64_t j = nan_row + 1; j < kOffsets[1]; ++j) rows[j * kD + 2] = 100.0f + j;
  const bool reaches = pooling != Pooling::kCls || nan_row == 0;
  ExpectPooled(rows, pooling,
               std::string(ToString(pooling)) + ", NaN in row " + std::to_string(nan_row));
  // Spelled out, beside the twin: NaN in that column of sequence 0 only.
  std::vector<float> got(static_cast<size_t>(2 * kD));
  PoolRows(rows.data(), kOffsets.data(), 2, kD, {pooling, false}, got.data());
  EXPECT_EQ(std::isnan(got[2]), reaches) << got[2];
  for (int64_t i = 0; i < 2 * kD; ++i) {
    if (i != 2) {
      EXPECT_FALSE(std::isnan(got[i])) << "value " << i;
    }
  }
}

TEST_P(PoolingNanTest, NormalizedRowOfANanIsNan) {
  const auto [pooling, nan_row] = GetParam();
  std::vector<float> rows = Rows(11);
  rows[nan_row * kD + 2] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> got(static_cast<size_t>(2 * kD));
  PoolRows(rows.data(), kOffsets.data(), 2, kD, {pooling, true}, got.data());
  const bool reaches = pooling != Pooling::kCls || nan_row == 0;
  for (int64_t k = 0; k < kD; ++k) {
    EXPECT_EQ(std::isnan(got[k]), reaches) << "column " << k << ": " << got[k];
    EXPECT_FALSE(std::isnan(got[kD + k])) << "sequence 1, column " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(RowsOfSequence0, PoolingNanTest,
                         ::testing::Combine(::testing::Values(Pooling::kMax, Pooling::kMean,
                                                              Pooling::kCls),
                                            ::testing::Values(0, 1, 3)),
                         [](const ::testing::TestParamInfo<NanCase>& info) {
                           return std::string(ToString(std::get<0>(info.param))) + "_NanInRow" +
                                  std::to_string(std::get<1>(info.param));
                         });

class PoolingTest : public ::testing::TestWithParam<Pooling> {};

TEST_P(PoolingTest, MatchesTheNaiveTwin) { ExpectPooled(Rows(3), GetParam(), "finite rows"); }

INSTANTIATE_TEST_SUITE_P(Poolings, PoolingTest,
                         ::testing::Values(Pooling::kMax, Pooling::kMean, Pooling::kCls),
                         [](const ::testing::TestParamInfo<Pooling>& info) {
                           return std::string(ToString(info.param));
                         });

}  // namespace
}  // namespace phasor

#include "layers/frequencies.h"

#include <cassert>
#include <cmath>
#include <string>

#include "engine/error.h"

namespace phasor {
namespace {

// 2π = kTwoPi1 + kTwoPi2 + kTwoPi3 to 5e-36. The first two parts have at most
// 26 significant bits, so k·kTwoPi1 and k·kTwoPi2 are exact in long double
// (64 bits) for |k| < 2^38, and x - k·kTwoPi1 is exact (Sterbenz).
constexpr long double kTwoPi1 = 0xc90fda8p-25L;
constexpr long double kTwoPi2 = 0x8885a3p-47L;
constexpr long double kTwoPi3 = 0x8d313198a2e03707p-115L;
constexpr long double kTwoPi = 0xc90fdaa22168c235p-61L;     // rounded to 64 bits
constexpr long double kInvTwoPi = 0xa2f9836e4e44152ap-66L;  // 1/(2π)
constexpr long double kMaxExactTurns = 0x1p38L;
constexpr long double kSmallAngle = 0x1p16L;  // the turn tables' angles at freq <= 2

}  // namespace

void CheckLadder(int64_t dim, double base, PeDenominator denominator) {
  if (dim < 2 || dim % 2 != 0) {
    throw Error("d_model must be even and at least 2, got " + std::to_string(dim));
  }
  if (denominator == PeDenominator::kHalfMinusOne && dim < 4) {
    throw Error("d_model must be at least 4 with denominator 'half_minus_one', got " +
                std::to_string(dim));
  }
  if (!std::isfinite(base) || base <= 1.0) {
    throw Error("base must be a finite number greater than 1, got " + std::to_string(base));
  }
}

std::vector<double> FrequencyLadder(int64_t dim, double base, PeDenominator denominator) {
  CheckLadder(dim, base, denominator);
  const std::vector<long double> exact = FrequencyLadderLong(dim, base, denominator);
  return std::vector<double>(exact.begin(), exact.end());
}

std::vector<long double> FrequencyLadderLong(int64_t dim, long double base,
                                             PeDenominator denominator) {
  const int64_t half = dim / 2;
  const long double log_base = std::log(base);
  std::vector<long double> freq(static_cast<size_t>(half));
  for (int64_t i = 0; i < half; ++i) {
    const long double exponent =
        denominator == PeDenominator::kDModel
            ? static_cast<long double>(2 * i) / static_cast<long double>(dim)
            : static_cast<long double>(i) / static_cast<long double>(half - 1);
    freq[static_cast<size_t>(i)] = std::exp(-exponent * log_base);
  }
  return freq;
}

double ReducedAngle(int64_t pos, long double freq) {
  assert(pos >= 0 && freq >= 0);
  const long double x = static_cast<long double>(pos) * freq;
  // Small angles: rounded to double (off by at most 2^-38 rad), sin and cos
  // reduce them exactly themselves; costs half of the reduction below.
  if (x < kSmallAngle) return static_cast<double>(x);
  // rint, not nearbyint: the same integer in the default rounding mode, one
  // x87 instruction rather than a call that saves and restores the FP state.
  const long double k = std::rint(x * kInvTwoPi);
  if (k >= kMaxExactTurns) return static_cast<double>(std::remainder(x, kTwoPi));
  return static_cast<double>(((x - k * kTwoPi1) - k * kTwoPi2) - k * kTwoPi3);
}

float LibraryAngle(int64_t pos, float freq) {
  assert(pos >= 0);
  return static_cast<float>(pos) * freq;  // one float32 product (-ffp-contract=off)
}

}  // namespace phasor

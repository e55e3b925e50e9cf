#include "layers/frequencies.h"

#include <cmath>
#include <string>

#include "engine/error.h"

namespace phasor {

std::vector<double> FrequencyLadder(int64_t dim, double base, PeDenominator denominator) {
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

}  // namespace phasor

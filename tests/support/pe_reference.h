// An independent long double evaluation of the sinusoidal PE formula of the
// contract, written directly from it and sharing no code with layers/.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace phasor::testing {

enum class RefLayout { kInterleaved, kSplit };
enum class RefDenominator { kDModel, kHalfMinusOne };

inline long double RefFreq(int64_t i, int64_t d_model, long double base, RefDenominator den) {
  const long double e =
      den == RefDenominator::kDModel
          ? 2.0L * static_cast<long double>(i) / static_cast<long double>(d_model)
          : static_cast<long double>(i) / static_cast<long double>(d_model / 2 - 1);
  return powl(base, -e);
}

// PE row for position pos: [d_model] values in long double.
inline std::vector<long double> RefPeRow(int64_t pos, int64_t d_model, long double base,
                                         RefLayout layout, RefDenominator den) {
  std::vector<long double> row(static_cast<size_t>(d_model));
  const int64_t half = d_model / 2;
  for (int64_t i = 0; i < half; ++i) {
    const long double angle = static_cast<long double>(pos) * RefFreq(i, d_model, base, den);
    const long double s = sinl(angle), c = cosl(angle);
    if (layout == RefLayout::kInterleaved) {
      row[2 * i] = s;
      row[2 * i + 1] = c;
    } else {
      row[i] = s;
      row[half + i] = c;
    }
  }
  return row;
}

}  // namespace phasor::testing

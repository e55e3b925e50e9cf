// Wall-clock seconds and the median of repeated runs, as every command times
// its work.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace phasor {

// Seconds on a steady clock (differences only).
inline double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The median of v (the mean of the middle two for an even count); 0 if empty.
inline double Median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace phasor

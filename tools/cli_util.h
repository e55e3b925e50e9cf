// Small helpers shared by the subcommands.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/error.h"

namespace phasor::cli {

inline double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double Median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Throws UsageError unless lo <= value <= hi.
inline void CheckRange(const std::string& flag, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi) {
    throw UsageError(flag + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "], got " + std::to_string(value));
  }
}

constexpr int64_t kGiB = int64_t{1} << 30;

}  // namespace phasor::cli

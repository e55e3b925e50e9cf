// What the kernel tests share: seeded random inputs, a bit-for-bit comparison
// and a guard that puts the CPU target and thread count back after a test that
// changes them.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "engine/cpu.h"
#include "engine/parallel.h"

namespace phasor::testing {

// n values uniform in [lo, hi), the same for the same seed.
inline std::vector<float> Random(int64_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

// The same size and the same bits (NaNs compare by their bits).
template <class T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

class IsaGuard {  // the default target and thread count again after a test
 public:
  IsaGuard() : isa_(ActiveIsa()) {}
  ~IsaGuard() {
    SetIsa(isa_);
    SetNumThreads(0);
  }
  IsaGuard(const IsaGuard&) = delete;
  IsaGuard& operator=(const IsaGuard&) = delete;

 private:
  Isa isa_;
};

}  // namespace phasor::testing

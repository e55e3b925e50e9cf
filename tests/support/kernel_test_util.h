// What the kernel tests share: seeded random inputs, a bit-for-bit comparison,
// a guard that puts the CPU target and thread count back after a test that
// changes them, a run on every target, and the arguments of a product of
// row-major operands.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/cpu.h"
#include "engine/kernels/gemm.h"
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

class ThreadsGuard {  // restores the default thread count after a test
 public:
  ~ThreadsGuard() { SetNumThreads(0); }
};

// Whether this CPU and build have the amx target (oneDNN's; forced on any
// CPU with AVX-512 VNNI), and a test's first line that skips it otherwise.
inline bool HasAmxTarget() {
  for (Isa isa : AvailableIsas()) {
    if (isa == Isa::kAmx) return true;
  }
  return false;
}
#define SKIP_WITHOUT_AMX_TARGET() \
  if (!::phasor::testing::HasAmxTarget()) GTEST_SKIP() << "this CPU or build has no amx target"

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

// The targets this CPU has, each after a space (" avx512 avx2 portable").
inline std::string TargetNames() {
  std::string s;
  for (Isa isa : AvailableIsas()) s += std::string(" ") + IsaName(isa);
  return s;
}

// The operands of c [rows, n] (+)= a [rows, k] · b [k, n] for GemmPanels: a
// and c dense, b row-major with row stride ldb (its panels in place).
struct RowMajorProduct {
  int64_t rows, k, n, ldb;
};

inline kernels::PanelProduct PanelsOf(const RowMajorProduct& s, const float* a, const float* b,
                                      float* c, bool accumulate) {
  kernels::PanelProduct p;
  p.a = a;
  p.lda = s.k;
  p.b = b;
  p.ldb = s.ldb;
  p.panel_stride = kernels::kGemmPanel;
  p.c = c;
  p.ldc = s.n;
  p.rows = s.rows;
  p.k = s.k;
  p.n = s.n;
  p.accumulate = accumulate;
  return p;
}

}  // namespace phasor::testing

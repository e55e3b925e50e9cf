// The float32 product on every target this CPU has (IsaTest, isa_test.cc):
// the key panels' layout, and the packed and strided products, the same bits
// on avx512 and avx2 (fused multiply-adds in k order), within 1e-5 of
// portable's (a multiply and an add) and of a double sum, for any thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/cpu.h"
#include "engine/kernels/attention.h"
#include "engine/kernels/gemm.h"
#include "engine/kernels/kernel_table.h"
#include "engine/parallel.h"
#include "tests/support/kernel_test_util.h"

namespace phasor::kernels {
namespace {

using phasor::testing::OnEveryTarget;
using phasor::testing::PanelsOf;
using phasor::testing::Random;
using phasor::testing::SameBits;

constexpr double kTol = 1e-5;  // |target - reference| <= kTol·(1 + |reference|)

// The first value where the two differ by more than kTol, or -1.
int64_t FirstFar(const std::vector<float>& got, const std::vector<double>& want) {
  for (size_t i = 0; i < got.size(); ++i) {
    if (!(std::abs(got[i] - want[i]) <= kTol * (1.0 + std::abs(want[i])))) {
      return static_cast<int64_t>(i);
    }
  }
  return -1;
}

// Keys into the score product's panels (PackKeyPanels, kernel
// transpose_panels) on every target: key j, column c of panel p at
// p·cols·32 + c·32 + j, zero past the last key, nothing written past the
// panels. Key counts on both sides of a panel and of avx512's 16-row blocks,
// widths on both sides of its 16 columns.
TEST(IsaTest, KeyPanelsFollowTheLayoutOnEveryTarget) {
  for (const auto& shape : {std::pair<int64_t, int64_t>{1, 1},
                            {15, 16},
                            {16, 17},
                            {31, 64},
                            {32, 64},
                            {33, 3},
                            {70, 33},
                            {100, 96}}) {
    const int64_t keys = shape.first, cols = shape.second;  // copies: a lambda uses them
    const int64_t ld = cols + 5, size = KeyPanelFloats(keys, cols);
    const std::vector<float> x = Random(keys * ld, static_cast<uint32_t>(keys + cols));
    OnEveryTarget([&] {
      std::vector<float> out(size + 7, NAN);
      PackKeyPanels(x.data(), ld, keys, cols, out.data());
      for (int64_t i = 0; i < size; ++i) {
        const int64_t p = i / (cols * 32), c = i % (cols * 32) / 32, j = p * 32 + i % 32;
        const float want = j < keys ? x[j * ld + c] : 0.0f;
        EXPECT_EQ(out[i], want) << IsaName(ActiveIsa()) << ": " << keys << " x " << cols << ", key "
                                << j << ", column " << c;
        if (out[i] != want) return 0;
      }
      for (int64_t i = size; i < size + 7; ++i)
        EXPECT_TRUE(std::isnan(out[i])) << IsaName(ActiveIsa());
      return 0;
    });
  }
}

// --- the packed product --------------------------------------------------------

struct Shape {
  int64_t rows, in, out;
};

TEST(IsaTest, PackedProductAgreesAcrossTargetsAndWithDoubleForAnyThreadCount) {
  for (const Shape& sh : {Shape{1, 3, 1}, Shape{5, 7, 6}, Shape{17, 64, 70}, Shape{64, 256, 96},
                          Shape{130, 128, 300}}) {
    const std::vector<float> x = Random(sh.rows * sh.in, 21);
    const float bound = 1.0f / std::sqrt(static_cast<float>(sh.in));
    const std::vector<float> w = Random(sh.out * sh.in, 22, -bound, bound);
    const std::vector<float> b = Random(sh.out, 23);
    const PackedWeights packed(w.data(), b.data(), sh.out, sh.in);
    std::vector<double> want(sh.rows * sh.out);
    for (int64_t r = 0; r < sh.rows; ++r) {
      for (int64_t j = 0; j < sh.out; ++j) {
        double sum = b[j];
        for (int64_t k = 0; k < sh.in; ++k) sum += double{x[r * sh.in + k]} * w[j * sh.in + k];
        want[r * sh.out + j] = std::max(sum, 0.0);
      }
    }
    const auto results = OnEveryTarget([&] {
      std::vector<float> y1(sh.rows * sh.out), y2(sh.rows * sh.out);
      SetNumThreads(1);
      PackedLinear(x.data(), sh.rows, packed, y1.data(), Activation::kRelu);
      SetNumThreads(2);
      PackedLinear(x.data(), sh.rows, packed, y2.data(), Activation::kRelu);
      EXPECT_TRUE(SameBits(y1, y2)) << IsaName(ActiveIsa()) << ": 1 and 2 threads differ";
      EXPECT_EQ(FirstFar(y1, want), -1) << IsaName(ActiveIsa()) << " against double";
      return y1;
    });
    const std::vector<Isa> isas = AvailableIsas();
    for (size_t t = 0; t < results.size(); ++t) {
      std::vector<double> portable(results.back().begin(), results.back().end());
      EXPECT_EQ(FirstFar(results[t], portable), -1) << IsaName(isas[t]) << " against portable";
      // FMA targets agree with each other bit for bit.
      if (isas[t] != Isa::kPortable && isas.front() != Isa::kPortable) {
        EXPECT_TRUE(SameBits(results[t], results.front()))
            << IsaName(isas[t]) << " differs from " << IsaName(isas.front());
      }
    }
  }
}

TEST(IsaTest, GemmPanelsAccumulatesAlikeOnEveryTarget) {
  const int64_t rows = 11, k = 40, n = 45, ldb = n + 5;
  const std::vector<float> a = Random(rows * k, 31), b = Random((k - 1) * ldb + n, 32);
  const std::vector<float> c0 = Random(rows * n, 33);
  std::vector<double> want(rows * n);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = c0[r * n + j];
      for (int64_t i = 0; i < k; ++i) sum += double{a[r * k + i]} * b[i * ldb + j];
      want[r * n + j] = sum;
    }
  }
  const auto results = OnEveryTarget([&] {
    std::vector<float> c = c0;
    GemmPanels(PanelsOf({rows, k, n, ldb}, a.data(), b.data(), c.data(), true));
    EXPECT_EQ(FirstFar(c, want), -1) << IsaName(ActiveIsa());
    return c;
  });
  const std::vector<Isa> isas = AvailableIsas();
  for (size_t t = 0; t + 1 < results.size(); ++t) {
    if (isas.front() != Isa::kPortable) {
      EXPECT_TRUE(SameBits(results[t], results.front())) << IsaName(isas[t]);
    }
  }
}

}  // namespace
}  // namespace phasor::kernels

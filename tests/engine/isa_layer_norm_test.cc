// LayerNorm and AddLayerNorm on every target this CPU has (IsaTest,
// isa_test.cc): the same bits on every target and the norm in double.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/cpu.h"
#include "engine/kernels/layer_norm.h"
#include "tests/support/kernel_test_util.h"

namespace phasor::kernels {
namespace {

using phasor::testing::OnEveryTarget;
using phasor::testing::Random;
using phasor::testing::SameBits;
using phasor::testing::TargetNames;

// LayerNorm and AddLayerNorm (out apart, or over either input) give the same
// bits on every target: the same 16-lane sums in the same tree and the same
// steps per value. Widths on both sides of the vectors' 8 and 16 lanes, a row
// far from zero and a constant row; and every target within 2e-5 of the norm
// in double (the rows are of order 1 after it).
TEST(IsaTest, LayerNormGivesTheSameBitsOnEveryTarget) {
  for (int64_t n : {1, 7, 8, 15, 16, 17, 40, 512, 768, 1000}) {
    const int64_t rows = 4;
    std::vector<float> x = Random(rows * n, static_cast<uint32_t>(n), -5.0f, 5.0f);
    const std::vector<float> r = Random(rows * n, static_cast<uint32_t>(n) + 1, -2.0f, 2.0f);
    const std::vector<float> gamma = Random(n, static_cast<uint32_t>(n) + 2, 0.5f, 1.5f);
    const std::vector<float> beta = Random(n, static_cast<uint32_t>(n) + 3);
    for (int64_t j = 0; j < n; ++j) {
      x[n + j] += 1000.0f;    // row 1: far from zero
      x[2 * n + j] = 0.375f;  // row 2: constant, so beta
    }
    const NormParams p{gamma.data(), beta.data(), 1e-5f};
    std::vector<float> ref(rows * n), ref_add(rows * n);
    LayerNormNaive(x.data(), rows, n, p, ref.data());
    AddLayerNormNaive(x.data(), r.data(), rows, n, p, ref_add.data());
    const auto results = OnEveryTarget([&] {
      std::vector<float> y(rows * n, NAN), y_add(rows * n, NAN), into_x = x, into_r = r;
      LayerNorm(x.data(), rows, n, p, y.data());
      AddLayerNorm(x.data(), r.data(), rows, n, p, y_add.data());
      AddLayerNorm(into_x.data(), r.data(), rows, n, p, into_x.data());
      AddLayerNorm(x.data(), into_r.data(), rows, n, p, into_r.data());
      std::vector<float> in_place = x;
      LayerNorm(in_place.data(), rows, n, p, in_place.data());
      EXPECT_TRUE(SameBits(in_place, y)) << IsaName(ActiveIsa()) << " in place, n " << n;
      EXPECT_TRUE(SameBits(into_x, y_add)) << IsaName(ActiveIsa()) << " into x, n " << n;
      EXPECT_TRUE(SameBits(into_r, y_add)) << IsaName(ActiveIsa()) << " into r, n " << n;
      for (int64_t j = 0; j < rows * n; ++j) {
        EXPECT_NEAR(y[j], ref[j], 2e-5) << IsaName(ActiveIsa()) << " n " << n << " at " << j;
        EXPECT_NEAR(y_add[j], ref_add[j], 2e-5)
            << IsaName(ActiveIsa()) << " n " << n << " at " << j;
      }
      y.insert(y.end(), y_add.begin(), y_add.end());
      return y;
    });
    for (size_t t = 1; t < results.size(); ++t) {
      EXPECT_TRUE(SameBits(results[t], results[0]))
          << TargetNames() << ": target " << t << ", n " << n;
    }
  }
}

}  // namespace
}  // namespace phasor::kernels

// NaN and infinities through the kernels that exponentiate scores: a NaN
// stays NaN where it belongs (never undefined behaviour, never a finite value
// made up from it), and spreads no further than the rows it touches.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "engine/aligned_allocator.h"
#include "engine/cpu.h"
#include "engine/kernels/attention.h"
#include "engine/kernels/gemm.h"
#include "engine/kernels/vector_math.h"
#include "tests/support/kernel_test_util.h"
#include "tests/support/max_error.h"

namespace phasor {
namespace {

using kernels::AttentionArgs;
using kernels::AttentionNaive;
using kernels::AttentionScratchFloats;
using kernels::AttentionTile;
using kernels::ExpShifted;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Every special value at every lane of a 16-wide vector and in the scalar
// tail: exp(NaN) is NaN (the vector path once made it about 2^-126, a weight
// that silently dropped the score), exp(-inf) is exactly 0 (a masked score),
// and +inf and huge arguments saturate where the clamp puts them.
TEST(NonFiniteKernelsTest, ExpShiftedKeepsNaNAndMasksMinusInfinity) {
  for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{16}, int64_t{37}}) {
    for (int64_t at = 0; at < n; ++at) {
      for (float special : {kNaN, -kInf, kInf, 1e30f, -1e30f}) {
        std::vector<float> x(static_cast<size_t>(n), 0.5f), out(x.size());
        x[at] = special;
        ExpShifted(x.data(), 0.25f, n, out.data());
        if (std::isnan(special)) {
          EXPECT_TRUE(std::isnan(out[at])) << "n " << n << " at " << at;
        } else if (special < 0) {
          EXPECT_LE(out[at], 1.2e-38f) << special << " n " << n << " at " << at;
          if (std::isinf(special)) {
            EXPECT_EQ(out[at], 0.0f) << "n " << n << " at " << at;
          }
        } else {
          EXPECT_GT(out[at], 1e38f) << special << " n " << n << " at " << at;
        }
        for (int64_t j = 0; j < n; ++j) {
          if (j == at) continue;
          EXPECT_FLOAT_EQ(out[j], std::exp(0.25f)) << "n " << n << " j " << j;
        }
      }
    }
  }
}

// A NaN in one query row makes that row's output NaN and leaves every other
// row as the naive twin computes it; a NaN in a key row reaches every query.
TEST(NonFiniteKernelsTest, AttentionTileConfinesANaNScoreToItsRows) {
  const int64_t n_q = 9, n_keys = 300, d_head = 32;
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  std::vector<float> q(n_q * d_head), k(n_keys * d_head), v(n_keys * d_head);  // [rows, d_head]
  for (auto* m : {&q, &k, &v}) {
    for (float& x : *m) x = normal(rng);
  }
  auto run = [&](const std::vector<float>& qq, const std::vector<float>& kk) {
    std::vector<float> out(n_q * d_head), ref(n_q * d_head);  // [n_q, d_head]
    AttentionArgs a;
    a.q = qq.data();
    a.k = kk.data();
    a.v = v.data();
    a.ldq = a.ldk = a.ldv = a.ldo = d_head;
    a.n_q = n_q;
    a.n_keys = n_keys;
    a.d_head = d_head;
    a.scale = 1.0f / std::sqrt(static_cast<float>(d_head));
    AlignedFloats scratch(static_cast<size_t>(AttentionScratchFloats(n_q, d_head)));
    a.out = out.data();
    AttentionTile(a, scratch.data());
    a.out = ref.data();
    AttentionNaive(a);
    return std::make_pair(out, ref);
  };

  std::vector<float> q_nan = q;
  q_nan[4 * d_head + 3] = kNaN;
  const auto [out, ref] = run(q_nan, k);
  for (int64_t i = 0; i < n_q; ++i) {
    const float* row = &out[i * d_head];
    if (i == 4) {
      for (int64_t c = 0; c < d_head; ++c) EXPECT_TRUE(std::isnan(row[c])) << "column " << c;
    } else {
      EXPECT_LE(testing::MaxAbsError(row, &ref[i * d_head], d_head), 1e-5) << "row " << i;
    }
  }

  std::vector<float> k_nan = k;
  k_nan[123 * d_head] = kNaN;
  const auto [out_k, ref_k] = run(q, k_nan);
  for (float x : out_k) EXPECT_TRUE(std::isnan(x));
}

// The float32 product with relu on every target: a row holding a NaN gives NaN
// outputs (relu keeps it, as std::max(y, 0.0f) does; AVX's max(y, 0) would
// make it 0), and the other rows are untouched by it.
TEST(NonFiniteKernelsTest, PackedLinearReluKeepsANaNRowOnEveryTarget) {
  const int64_t rows = 5, in = 40, out = 70;
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(rows * in), w(out * in), b(out);
  for (float& v : x) v = dist(rng);
  for (float& v : w) v = dist(rng);
  for (float& v : b) v = dist(rng);
  x[2 * in + 7] = kNaN;  // row 2
  const kernels::PackedWeights packed(w.data(), b.data(), out, in);
  testing::IsaGuard guard;
  for (Isa isa : AvailableIsas()) {
    SetIsa(isa);
    std::vector<float> y(rows * out);
    kernels::PackedLinear(x.data(), rows, packed, y.data(), kernels::Activation::kRelu);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < out; ++c) {
        const float v = y[r * out + c];
        if (r == 2) {
          ASSERT_TRUE(std::isnan(v)) << IsaName(isa) << " column " << c;
        } else {
          ASSERT_TRUE(v >= 0.0f) << IsaName(isa) << " row " << r << " column " << c;
        }
      }
    }
  }
}

}  // namespace
}  // namespace phasor

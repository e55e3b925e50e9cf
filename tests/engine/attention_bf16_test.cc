// The bfloat16 attention tile (engine/kernels/attention_bf16.h) on every CPU
// target this machine has: the packed layouts against the formulas of the
// header, and the tile against a naive twin in double that rounds q·scale, k
// and v to bfloat16 the same way (ToBf16) and keeps the weights exact. The
// tile also rounds the softmax weights to bfloat16 (and normalises by their
// sum): a relative error of at most 2^-9 per weight, so at most about
// 2·2^-9·max|v| on an output; the bound below is the one the measured worst
// (6e-4) sits well inside.
#include "engine/kernels/attention_bf16.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "engine/cpu.h"
#include "engine/kernels/gemm_bf16.h"
#include "tests/support/kernel_test_util.h"

namespace phasor::kernels {
namespace {

using phasor::testing::IsaGuard;
using phasor::testing::Random;

constexpr double kTol = 2.5e-3;  // |v| <= 1

double Bf16(float x) { return FromBf16(ToBf16(x)); }

struct Case {
  int64_t n_q, n_keys, d_head, ld;
  std::vector<float> q, k, v;  // [n, ld] each, the head's values from column 3

  AttentionBf16Args Args(const uint16_t* kb, const uint16_t* vb, float* out) const {
    AttentionBf16Args a;
    a.q = q.data() + 3;
    a.k = kb;
    a.v = vb;
    a.out = out + 1;
    a.ldq = ld;
    a.ldo = d_head + 2;
    a.n_q = n_q;
    a.n_keys = n_keys;
    a.d_head = d_head;
    a.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d_head)));
    return a;
  }
  int64_t OutFloats() const { return n_q * (d_head + 2) + 1; }

  // The naive twin: out[i, c] (row i, column c of the written block).
  std::vector<double> Reference(float scale) const {
    std::vector<double> out(static_cast<size_t>(n_q * d_head), 0.0);
    std::vector<double> p(static_cast<size_t>(n_keys));
    for (int64_t i = 0; i < n_q; ++i) {
      double max = -std::numeric_limits<double>::infinity(), sum = 0.0;
      for (int64_t j = 0; j < n_keys; ++j) {
        double dot = 0.0;
        for (int64_t c = 0; c < d_head; ++c) {
          dot += Bf16(q[i * ld + 3 + c] * scale) * Bf16(k[j * ld + 3 + c]);
        }
        p[j] = dot;
        max = std::max(max, dot);
      }
      for (int64_t j = 0; j < n_keys; ++j) sum += (p[j] = std::exp(p[j] - max));
      for (int64_t c = 0; c < d_head && n_keys > 0; ++c) {
        double acc = 0.0;
        for (int64_t j = 0; j < n_keys; ++j) acc += p[j] * Bf16(v[j * ld + 3 + c]);
        out[i * d_head + c] = acc / sum;
      }
    }
    return out;
  }
};

Case MakeCase(int64_t n_q, int64_t n_keys, int64_t d_head, uint32_t seed) {
  const int64_t ld = d_head + 5, rows = std::max<int64_t>(n_keys, 1);
  return {n_q,
          n_keys,
          d_head,
          ld,
          Random(n_q * ld, seed, -2.0f, 2.0f),
          Random(rows * ld, seed + 1, -2.0f, 2.0f),
          Random(rows * ld, seed + 2)};
}

TEST(AttentionBf16Test, PackedKeysAndValuesFollowTheHeaderLayoutsOnEveryTarget) {
  IsaGuard guard;
  for (const auto& [n_keys, d_head] : {std::pair<int64_t, int64_t>{1, 1},
                                       {31, 16},
                                       {33, 64},
                                       {70, 33},
                                       {128, 96},
                                       {129, 40},
                                       {65, 129}}) {  // column chunks of 64, the last one odd
    const Case c = MakeCase(1, n_keys, d_head, 7);
    const int64_t d_even = (d_head + 1) / 2 * 2, n_even = (n_keys + 1) / 2 * 2;
    const int64_t key_panels = (n_keys + 31) / 32, value_panels = (d_head + 31) / 32;
    for (Isa isa : AvailableIsas()) {
      SetIsa(isa);
      std::vector<uint16_t> kb(KeysBf16Values(n_keys, d_head), 0xFFFF);
      std::vector<uint16_t> vb(ValuesBf16Values(n_keys, d_head), 0xFFFF);
      PackKeysBf16(c.k.data() + 3, c.ld, n_keys, d_head, kb.data());
      PackValuesBf16(c.v.data() + 3, c.ld, n_keys, d_head, vb.data());
      ASSERT_EQ(static_cast<int64_t>(kb.size()), key_panels * 32 * d_even);
      ASSERT_EQ(static_cast<int64_t>(vb.size()), value_panels * 32 * n_even);
      const std::string what = std::string(IsaName(isa)) + ": " + std::to_string(n_keys) +
                               " keys of " + std::to_string(d_head);
      for (int64_t j = 0; j < key_panels * 32; ++j) {
        for (int64_t c2 = 0; c2 < d_even; ++c2) {
          const uint16_t want = j < n_keys && c2 < d_head ? ToBf16(c.k[j * c.ld + 3 + c2]) : 0;
          ASSERT_EQ(kb[j / 32 * 32 * d_even + c2 / 2 * 64 + j % 32 * 2 + c2 % 2], want)
              << what << ": key " << j << ", column " << c2;
        }
      }
      for (int64_t j = 0; j < n_even; ++j) {
        for (int64_t c2 = 0; c2 < value_panels * 32; ++c2) {
          const uint16_t want = j < n_keys && c2 < d_head ? ToBf16(c.v[j * c.ld + 3 + c2]) : 0;
          ASSERT_EQ(vb[c2 / 32 * 32 * n_even + j / 2 * 64 + c2 % 32 * 2 + j % 2], want)
              << what << ": value " << j << ", column " << c2;
        }
      }
    }
  }
}

using Shape = std::tuple<int64_t, int64_t, int64_t>;  // n_q, n_keys, d_head

class AttentionBf16TileTest : public ::testing::TestWithParam<Shape> {};

TEST_P(AttentionBf16TileTest, MatchesTheNaiveTwinOnEveryTarget) {
  const auto [n_q, n_keys, d_head] = GetParam();
  const Case c = MakeCase(n_q, n_keys, d_head, 31);
  std::vector<uint16_t> kb(KeysBf16Values(n_keys, d_head)), vb(ValuesBf16Values(n_keys, d_head));
  PackKeysBf16(c.k.data() + 3, c.ld, n_keys, d_head, kb.data());
  PackValuesBf16(c.v.data() + 3, c.ld, n_keys, d_head, vb.data());
  const AttentionBf16Args probe = c.Args(kb.data(), vb.data(), nullptr);
  const std::vector<double> ref = c.Reference(probe.scale);
  IsaGuard guard;
  for (Isa isa : AvailableIsas()) {
    SetIsa(isa);
    std::vector<float> out(c.OutFloats(), NAN);
    std::vector<float> scratch(AttentionBf16ScratchFloats(n_q, d_head), NAN);
    AttentionTileBf16(c.Args(kb.data(), vb.data(), out.data()), scratch.data());
    double worst = 0.0;
    for (int64_t i = 0; i < n_q; ++i) {
      for (int64_t j = 0; j < d_head; ++j) {
        const float got = out[1 + i * (d_head + 2) + j];
        ASSERT_FALSE(std::isnan(got)) << IsaName(isa) << " " << i << "," << j;
        worst = std::max(worst, std::abs(got - ref[i * d_head + j]));
        if (n_keys == 0) {
          ASSERT_EQ(got, 0.0f);
        }
      }
    }
    EXPECT_LE(worst, kTol) << IsaName(isa);
    // Nothing written outside the block: before it and the two columns past each row.
    EXPECT_TRUE(std::isnan(out[0])) << IsaName(isa);
    for (int64_t i = 0; i < n_q; ++i) {
      for (int64_t j = d_head; j < d_head + 2; ++j) {
        ASSERT_TRUE(std::isnan(out[1 + i * (d_head + 2) + j])) << IsaName(isa) << " " << i;
      }
    }

    // Another scratch, full of garbage, at another address: the same bits.
    std::vector<float> again(c.OutFloats(), NAN);
    std::vector<float> other = Random(AttentionBf16ScratchFloats(n_q, d_head) + 5, 3, -1e3f, 1e3f);
    AttentionTileBf16(c.Args(kb.data(), vb.data(), again.data()), other.data() + 5);
    EXPECT_TRUE(testing::SameBits(out, again)) << IsaName(isa);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, AttentionBf16TileTest,
    ::testing::Values(Shape{1, 1, 16}, Shape{1, 300, 16}, Shape{37, 0, 16},  // every key masked
                      Shape{64, 127, 64}, Shape{64, 128, 64}, Shape{64, 129, 48}, Shape{5, 300, 1},
                      Shape{3, 77, 33}, Shape{128, 257, 96}, Shape{17, 1000, 64},
                      Shape{33, 200, 160},  // k pairs past avx2's chunk
                      // both sides of a key tile (512 keys)
                      Shape{9, 511, 64}, Shape{9, 512, 64}, Shape{9, 513, 64}));

TEST(AttentionBf16TileTest, LargeScoresStayFiniteAndInsideTheValues) {
  Case c = MakeCase(4, 200, 32, 24);
  for (float& x : c.q) x *= 300.0f;  // scores of order 1e5: exp would overflow without the max
  std::vector<uint16_t> kb(KeysBf16Values(200, 32)), vb(ValuesBf16Values(200, 32));
  PackKeysBf16(c.k.data() + 3, c.ld, 200, 32, kb.data());
  PackValuesBf16(c.v.data() + 3, c.ld, 200, 32, vb.data());
  std::vector<float> out(c.OutFloats()), scratch(AttentionBf16ScratchFloats(4, 32));
  const AttentionBf16Args a = c.Args(kb.data(), vb.data(), out.data());
  AttentionTileBf16(a, scratch.data());
  for (int64_t i = 0; i < a.n_q; ++i) {
    // Within the rounded values' range: the weights are exactly normalised.
    for (int64_t j = 0; j < a.d_head; ++j) {
      float lo = INFINITY, hi = -INFINITY;
      for (int64_t key = 0; key < a.n_keys; ++key) {
        lo = std::min(lo, FromBf16(ToBf16(c.v[key * c.ld + 3 + j])));
        hi = std::max(hi, FromBf16(ToBf16(c.v[key * c.ld + 3 + j])));
      }
      const float got = a.out[i * a.ldo + j];
      ASSERT_TRUE(std::isfinite(got)) << i << "," << j;
      EXPECT_GE(got, lo - 1e-6f);
      EXPECT_LE(got, hi + 1e-6f);
    }
  }
}

}  // namespace
}  // namespace phasor::kernels

// The bfloat16 attention tile (engine/kernels/attention_bf16.h) on every CPU
// target this machine has: the packed layouts against the formulas of the
// header, and the tile against a naive twin in double that rounds q·scale, k
// and v to bfloat16 the same way (ToBf16) and keeps the weights exact. The
// tile also rounds the softmax weights to bfloat16 (and normalises by their
// sum): a relative error of at most 2^-9 per weight, so at most about
// 2·2^-9·max|v| on an output; the bound below is the one the measured worst
// (6e-4) sits well inside. With int8 keys (the int8 precision) the twin
// quantizes q and k per row as the header says, in its own code.
#include "engine/kernels/attention_bf16.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "engine/aligned_allocator.h"
#include "engine/cpu.h"
#include "engine/kernels/gemm_bf16.h"
#include "tests/support/kernel_test_util.h"

namespace phasor::kernels {
namespace {

using phasor::testing::IsaGuard;
using phasor::testing::Random;

constexpr double kTol = 2.5e-3;  // |v| <= 1

double Bf16(float x) { return FromBf16(ToBf16(x)); }

// x [n] quantized as gemm_int8.h's rows and channels: q = round_half_even(x ·
// (127 / max|x|)) in [-127, 127], scale max|x| / 127 (0 and q = 0 for a zero
// row, NaN and q = 0 for a non-finite one).
std::vector<int> QuantizeRow(const float* x, int64_t n, float* scale) {
  float m = 0.0f;
  bool finite = true;
  for (int64_t c = 0; c < n; ++c) {
    finite = finite && std::isfinite(x[c]);
    m = std::max(m, std::abs(x[c]));
  }
  std::vector<int> q(static_cast<size_t>(n), 0);
  if (!finite || m == 0.0f) {
    *scale = finite ? 0.0f : std::numeric_limits<float>::quiet_NaN();
    return q;
  }
  const float inv = 127.0f / m;
  for (int64_t c = 0; c < n; ++c) {
    q[c] = static_cast<int>(std::clamp(std::nearbyint(x[c] * inv), -127.0f, 127.0f));
  }
  *scale = m / 127.0f;
  return q;
}

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

  // The score of query i and key j: bfloat16 operands, or int8 ones
  // dequantized.
  double Score(int64_t i, int64_t j, float scale, bool int8_keys) const {
    double dot = 0.0;
    if (!int8_keys) {
      for (int64_t c = 0; c < d_head; ++c) {
        dot += Bf16(q[i * ld + 3 + c] * scale) * Bf16(k[j * ld + 3 + c]);
      }
      return dot;
    }
    float sq = 0.0f, sk = 0.0f;
    const std::vector<int> q8 = QuantizeRow(q.data() + i * ld + 3, d_head, &sq);
    const std::vector<int> k8 = QuantizeRow(k.data() + j * ld + 3, d_head, &sk);
    for (int64_t c = 0; c < d_head; ++c) dot += q8[c] * k8[c];
    return dot * sq * scale * sk;
  }

  // The naive twin: out[i, c] (row i, column c of the written block).
  std::vector<double> Reference(float scale, bool int8_keys = false) const {
    std::vector<double> out(static_cast<size_t>(n_q * d_head), 0.0);
    std::vector<double> p(static_cast<size_t>(n_keys));
    for (int64_t i = 0; i < n_q; ++i) {
      double max = -std::numeric_limits<double>::infinity(), sum = 0.0;
      for (int64_t j = 0; j < n_keys; ++j) {
        const double dot = Score(i, j, scale, int8_keys);
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

TEST(AttentionBf16Test, PackedInt8KeysFollowTheHeaderLayoutOnEveryTarget) {
  IsaGuard guard;
  for (const auto& [n_keys, d_head] : {std::pair<int64_t, int64_t>{1, 1},
                                       {31, 16},
                                       {33, 64},
                                       {70, 33},
                                       {129, 40},
                                       {65, 129},
                                       {40, 200}}) {  // past the stack's 128 columns
    Case c = MakeCase(1, n_keys, d_head, 8);
    // Key 2 all zero, key 5 with an infinity: scales 0 and NaN, q 0.
    for (int64_t col = 0; n_keys > 5 && col < d_head; ++col) c.k[2 * c.ld + 3 + col] = 0.0f;
    if (n_keys > 5) c.k[5 * c.ld + 3 + d_head / 2] = INFINITY;
    const int64_t d4 = (d_head + 3) / 4 * 4, panels = (n_keys + 31) / 32;
    const int64_t panel_bytes = d4 * 32 + 256;
    for (Isa isa : AvailableIsas()) {
      SetIsa(isa);
      std::vector<uint16_t> kb(KeysInt8Values(n_keys, d_head) + 32, 0xFFFF);
      uint16_t* at = kb.data();  // 64-byte aligned
      while (reinterpret_cast<uintptr_t>(at) % 64 != 0) ++at;
      PackKeysInt8(c.k.data() + 3, c.ld, n_keys, d_head, at);
      ASSERT_EQ(KeysInt8Values(n_keys, d_head) * 2, panels * panel_bytes);
      const auto* bytes = reinterpret_cast<const uint8_t*>(at);
      const std::string what = std::string(IsaName(isa)) + ": " + std::to_string(n_keys) +
                               " keys of " + std::to_string(d_head);
      for (int64_t j = 0; j < panels * 32; ++j) {
        float scale = 0.0f;
        std::vector<int> q(static_cast<size_t>(d_head), 0);
        if (j < n_keys) q = QuantizeRow(c.k.data() + j * c.ld + 3, d_head, &scale);
        const uint8_t* panel = bytes + j / 32 * panel_bytes;
        int32_t got_sum = 0;
        float got_scale = 0.0f;
        std::memcpy(&got_sum, panel + d4 * 32 + j % 32 * 4, 4);
        std::memcpy(&got_scale, panel + d4 * 32 + 128 + j % 32 * 4, 4);
        int32_t sum = 0;
        for (int64_t col = 0; col < d4; ++col) {
          const int want = col < d_head ? q[col] : 0;
          sum += want;
          ASSERT_EQ(static_cast<int8_t>(panel[col / 4 * 128 + j % 32 * 4 + col % 4]), want)
              << what << ": key " << j << ", column " << col;
        }
        EXPECT_EQ(got_sum, sum) << what << ": key " << j;
        if (std::isnan(scale)) {
          EXPECT_TRUE(std::isnan(got_scale)) << what << ": key " << j;
        } else {
          EXPECT_EQ(got_scale, scale) << what << ": key " << j;
        }
      }
    }
  }
}

using Shape = std::tuple<int64_t, int64_t, int64_t>;  // n_q, n_keys, d_head

class AttentionBf16TileTest : public ::testing::TestWithParam<Shape> {};

// The tile with bfloat16 keys, or with int8 keys, against its twin.
void ExpectTheTwinOnEveryTarget(const Shape& shape, bool int8_keys) {
  const auto [n_q, n_keys, d_head] = shape;
  const Case c = MakeCase(n_q, n_keys, d_head, 31);
  // Keys in a 64-byte aligned vector (the int8 panels' loads need it).
  const int64_t key_values =
      int8_keys ? KeysInt8Values(n_keys, d_head) : KeysBf16Values(n_keys, d_head);
  std::vector<uint16_t, AlignedAllocator<uint16_t>> kb(static_cast<size_t>(key_values));
  std::vector<uint16_t> vb(ValuesBf16Values(n_keys, d_head));
  (int8_keys ? PackKeysInt8 : PackKeysBf16)(c.k.data() + 3, c.ld, n_keys, d_head, kb.data());
  PackValuesBf16(c.v.data() + 3, c.ld, n_keys, d_head, vb.data());
  const AttentionBf16Args probe = c.Args(kb.data(), vb.data(), nullptr);
  const std::vector<double> ref = c.Reference(probe.scale, int8_keys);
  auto args = [&](float* out) {
    AttentionBf16Args a = c.Args(kb.data(), vb.data(), out);
    a.int8_keys = int8_keys;
    return a;
  };
  IsaGuard guard;
  for (Isa isa : AvailableIsas()) {
    SetIsa(isa);
    std::vector<float> out(c.OutFloats(), NAN);
    std::vector<float> scratch(AttentionBf16ScratchFloats(n_q, d_head), NAN);
    AttentionTileBf16(args(out.data()), scratch.data());
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
    EXPECT_LE(worst, kTol) << IsaName(isa) << (int8_keys ? ", int8 keys" : "");
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
    AttentionTileBf16(args(again.data()), other.data() + 5);
    EXPECT_TRUE(testing::SameBits(out, again)) << IsaName(isa);
  }
}

TEST_P(AttentionBf16TileTest, MatchesTheNaiveTwinOnEveryTarget) {
  ExpectTheTwinOnEveryTarget(GetParam(), false);
}

TEST_P(AttentionBf16TileTest, Int8KeysMatchTheirNaiveTwinOnEveryTarget) {
  ExpectTheTwinOnEveryTarget(GetParam(), true);
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

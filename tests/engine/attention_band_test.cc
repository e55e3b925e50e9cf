// Causal and windowed attention (KeyBand, engine/kernels/attention.h) in the
// float32 and bfloat16 tiles on every target, against the naive twin in
// double, whose mask is a per-key test written apart from the tiles' key
// ranges, and against closed forms: a query that sees one key returns that
// key's value, a band that reaches every key is no band at all, a query that
// sees no key gets 0. The bfloat16 cases take q·scale, k and v already on
// bfloat16 values, so the only rounding left is the weights' (2^-9 relative).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/aligned_allocator.h"
#include "engine/cpu.h"
#include "engine/kernels/attention.h"
#include "engine/kernels/attention_bf16.h"
#include "engine/kernels/gemm_bf16.h"
#include "tests/support/kernel_test_util.h"

namespace phasor::kernels {
namespace {

using phasor::testing::IsaGuard;
using phasor::testing::Random;

struct BandCase {
  int64_t n_q, n_keys, d_head;
  KeyBand band;
};

std::string Name(const BandCase& c) {
  return std::to_string(c.n_q) + " queries at " + std::to_string(c.band.q_pos) + ", " +
         std::to_string(c.n_keys) + " keys, band [-" + std::to_string(c.band.before) + ", +" +
         std::to_string(c.band.after) + "]";
}

// Inputs on bfloat16 values (rows of d_head, contiguous); scale 1/4 (d_head
// 16) is a power of two, so q·scale stays one.
struct Inputs {
  std::vector<float> q, k, v;
  explicit Inputs(const BandCase& c) {
    auto bf16 = [](std::vector<float> x) {
      for (float& e : x) e = FromBf16(ToBf16(e));
      return x;
    };
    q = bf16(Random(c.n_q * c.d_head, 7, -2.0f, 2.0f));
    k = bf16(Random(std::max<int64_t>(c.n_keys, 1) * c.d_head, 8, -2.0f, 2.0f));
    v = bf16(Random(std::max<int64_t>(c.n_keys, 1) * c.d_head, 9));
  }
};

template <class Args>
Args Common(const BandCase& c, const Inputs& in, float* out) {
  Args a;
  a.q = in.q.data();
  a.out = out;
  a.ldq = a.ldo = c.d_head;
  a.n_q = c.n_q;
  a.n_keys = c.n_keys;
  a.d_head = c.d_head;
  a.scale = 0.25f;
  a.band = c.band;
  return a;
}

std::vector<float> Naive(const BandCase& c, const Inputs& in) {
  std::vector<float> out(static_cast<size_t>(c.n_q * c.d_head), NAN);
  auto a = Common<AttentionArgs>(c, in, out.data());
  a.k = in.k.data();
  a.v = in.v.data();
  a.ldk = a.ldv = c.d_head;
  AttentionNaive(a);
  return out;
}

std::vector<float> Fp32(const BandCase& c, const Inputs& in, bool panels) {
  std::vector<float> out(static_cast<size_t>(c.n_q * c.d_head), NAN);
  std::vector<float> packed(static_cast<size_t>(KeyPanelFloats(c.n_keys, c.d_head)));
  auto a = Common<AttentionArgs>(c, in, out.data());
  a.k = in.k.data();
  a.v = in.v.data();
  a.ldk = a.ldv = c.d_head;
  if (panels) {
    PackKeyPanels(a.k, c.d_head, c.n_keys, c.d_head, packed.data());
    a.k = nullptr;
    a.k_panels = packed.data();
  }
  std::vector<float> scratch(static_cast<size_t>(AttentionScratchFloats(c.n_q, c.d_head)));
  AttentionTile(a, scratch.data());
  return out;
}

std::vector<float> Bf16(const BandCase& c, const Inputs& in, bool int8_keys) {
  std::vector<float> out(static_cast<size_t>(c.n_q * c.d_head), NAN);
  const int64_t key_values =
      int8_keys ? KeysInt8Values(c.n_keys, c.d_head) : KeysBf16Values(c.n_keys, c.d_head);
  std::vector<uint16_t, AlignedAllocator<uint16_t>> kb(static_cast<size_t>(key_values));
  std::vector<uint16_t> vb(static_cast<size_t>(ValuesBf16Values(c.n_keys, c.d_head)));
  (int8_keys ? PackKeysInt8 : PackKeysBf16)(in.k.data(), c.d_head, c.n_keys, c.d_head, kb.data());
  PackValuesBf16(in.v.data(), c.d_head, c.n_keys, c.d_head, vb.data());
  auto a = Common<AttentionBf16Args>(c, in, out.data());
  a.k = kb.data();
  a.v = vb.data();
  a.int8_keys = int8_keys;
  std::vector<float> scratch(static_cast<size_t>(AttentionBf16ScratchFloats(c.n_q, c.d_head)));
  AttentionTileBf16(a, scratch.data());
  return out;
}

double Worst(const std::vector<float>& got, const std::vector<float>& want) {
  double worst = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i])) return INFINITY;
    worst = std::max(worst, static_cast<double>(std::abs(got[i] - want[i])));
  }
  return worst;
}

class AttentionBandTest : public ::testing::TestWithParam<BandCase> {};

TEST_P(AttentionBandTest, TilesMatchTheNaiveMaskOnEveryTarget) {
  const BandCase c = GetParam();
  const Inputs in(c);
  const std::vector<float> ref = Naive(c, in);
  IsaGuard guard;
  for (Isa isa : AvailableIsas()) {
    SetIsa(isa);
    const std::string where = std::string(IsaName(isa)) + ", " + Name(c);
    EXPECT_LE(Worst(Fp32(c, in, false), ref), 2e-5) << where;
    EXPECT_LE(Worst(Fp32(c, in, true), ref), 2e-5) << where << ", key panels";
    EXPECT_LE(Worst(Bf16(c, in, false), ref), 5e-3) << where << ", bf16";
    // int8 keys quantize the scores: a looser bound, still far below a key
    // wrongly in or out of the band (a weight of about 1 / band width).
    EXPECT_LE(Worst(Bf16(c, in, true), ref), 3e-2) << where << ", int8 keys";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Bands, AttentionBandTest,
    ::testing::Values(
        BandCase{1, 1, 16, {0, -1, 0}},            // causal, one key
        BandCase{40, 40, 16, {0, -1, 0}},          // causal, a whole short sequence
        BandCase{128, 700, 16, {512, -1, 0}},      // causal, a later query tile across key tiles
        BandCase{128, 1000, 16, {256, 8, 8}},      // a window of 17 inside a long sequence
        BandCase{64, 100, 16, {0, 3, 3}},          // the window cut at the sequence's start
        BandCase{64, 100, 16, {60, 5, 5}},         // ... and at its end
        BandCase{128, 1500, 16, {640, 600, 600}},  // a window wider than a key tile
        BandCase{32, 900, 16, {700, 300, 0}},      // causal and windowed (Qwen's sliding window)
        BandCase{16, 40, 16, {48, 2, 2}}));        // padded queries past every key they could see

// Closed forms: under a causal band query 0 sees key 0 only, so its output is
// v[0]; a band past both ends of the keys gives the same bits as none.
TEST(AttentionBandTest, ClosedForms) {
  const BandCase causal{8, 300, 16, {0, -1, 0}};
  const Inputs in(causal);
  IsaGuard guard;
  for (Isa isa : AvailableIsas()) {
    SetIsa(isa);
    const std::vector<float> out = Fp32(causal, in, true), out_bf16 = Bf16(causal, in, false);
    for (int64_t c = 0; c < 16; ++c) {
      EXPECT_FLOAT_EQ(out[c], in.v[c]) << IsaName(isa);
      EXPECT_FLOAT_EQ(out_bf16[c], in.v[c]) << IsaName(isa);
    }
    BandCase wide = causal, none = causal;
    wide.band = {0, 5000, 5000};
    none.band = {};
    EXPECT_EQ(Fp32(wide, in, false), Fp32(none, in, false)) << IsaName(isa);
    EXPECT_EQ(Bf16(wide, in, false), Bf16(none, in, false)) << IsaName(isa);
    // Queries past every key of a window of 2: nothing to see, out 0.
    BandCase past = causal;
    past.band = {310, 2, 2};
    for (float x : Fp32(past, in, false)) ASSERT_EQ(x, 0.0f) << IsaName(isa);
    for (float x : Bf16(past, in, true)) ASSERT_EQ(x, 0.0f) << IsaName(isa);
  }
}

// A distance bias (DistanceBias) alone: with q = 0 every score is its bias, so
// query i's output is Σ_j softmax_j(bias[clamp(j − i)])·v[j], computed here in
// double; with random q the tiles match the naive twin, inside a band too.
TEST(AttentionBandTest, DistanceBiasIsAddedByDistance) {
  constexpr int64_t kRadius = 5, kKeys = 600, kQ = 128, kHead = 16;
  const std::vector<float> bias = Random(2 * kRadius + 1, 41, -3.0f, 3.0f);
  BandCase c{kQ, kKeys, kHead, {300, -1, -1}};
  Inputs in(c);
  std::fill(in.q.begin(), in.q.end(), 0.0f);
  auto with_bias = [&](auto& a) { a.distance_bias = {bias.data(), kRadius}; };
  std::vector<double> want(static_cast<size_t>(kQ * kHead), 0.0);
  for (int64_t i = 0; i < kQ; ++i) {
    std::vector<double> w(kKeys);
    double sum = 0;
    for (int64_t j = 0; j < kKeys; ++j) {
      const int64_t dist = std::clamp<int64_t>(j - (300 + i), -kRadius, kRadius);
      sum += w[j] = std::exp(static_cast<double>(bias[dist + kRadius]));
    }
    for (int64_t j = 0; j < kKeys; ++j) {
      for (int64_t col = 0; col < kHead; ++col)
        want[i * kHead + col] += w[j] / sum * in.v[j * kHead + col];
    }
  }
  IsaGuard guard;
  for (Isa isa : AvailableIsas()) {
    SetIsa(isa);
    std::vector<float> out(static_cast<size_t>(kQ * kHead));
    auto a = Common<AttentionArgs>(c, in, out.data());
    a.k = in.k.data();
    a.v = in.v.data();
    a.ldk = a.ldv = kHead;
    with_bias(a);
    std::vector<float> scratch(static_cast<size_t>(AttentionScratchFloats(kQ, kHead)));
    AttentionTile(a, scratch.data());
    double worst = 0;
    for (size_t e = 0; e < out.size(); ++e) worst = std::max(worst, std::abs(out[e] - want[e]));
    EXPECT_LE(worst, 2e-5) << IsaName(isa);

    // Random q, in a causal band: the tiles against the naive twin.
    Inputs random(c);
    BandCase causal = c;
    causal.band = {300, -1, 0};
    std::vector<float> ref(out.size()), got(out.size());
    auto n = Common<AttentionArgs>(causal, random, ref.data());
    n.k = random.k.data();
    n.v = random.v.data();
    n.ldk = n.ldv = kHead;
    with_bias(n);
    AttentionNaive(n);
    auto t = n;
    t.out = got.data();
    AttentionTile(t, scratch.data());
    EXPECT_LE(Worst(got, ref), 2e-5) << IsaName(isa);
    std::vector<uint16_t, AlignedAllocator<uint16_t>> kb(
        static_cast<size_t>(KeysBf16Values(kKeys, kHead)));
    std::vector<uint16_t> vb(static_cast<size_t>(ValuesBf16Values(kKeys, kHead)));
    PackKeysBf16(random.k.data(), kHead, kKeys, kHead, kb.data());
    PackValuesBf16(random.v.data(), kHead, kKeys, kHead, vb.data());
    auto b = Common<AttentionBf16Args>(causal, random, got.data());
    b.k = kb.data();
    b.v = vb.data();
    with_bias(b);
    std::vector<float> scratch16(static_cast<size_t>(AttentionBf16ScratchFloats(kQ, kHead)));
    AttentionTileBf16(b, scratch16.data());
    EXPECT_LE(Worst(got, ref), 5e-3) << IsaName(isa) << ", bf16";
  }
}

}  // namespace
}  // namespace phasor::kernels

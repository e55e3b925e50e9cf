// RoPE's rows and the rotation of q and k against an independent long double
// evaluation of the formulas README gives (tests/support/rope_reference.h):
// cos/sin exactness to 2^24 in every mode, the table's layout, Apply, the
// relative-position property of the scores, and modes, threads and calls.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/error.h"
#include "engine/parallel.h"
#include "layers/rope.h"
#include "tests/support/max_error.h"
#include "tests/support/rope_reference.h"

namespace phasor {
namespace {

using testing::Case;
using testing::Cases;
using testing::DHeadFor;
using testing::k2p24;
using testing::kExact;
using testing::kScoreTol;
using testing::Ref;
using testing::RefAttentionFactor;
using testing::RefInvFreq;
using testing::ToOptions;

// mode × scaling: cos/sin rows within 2e-6·af of long double to 2^24.
class RopeExactTest : public ::testing::TestWithParam<std::tuple<PeMode, int>> {};

TEST_P(RopeExactTest, CosSinMatchLongDoubleTo2p24) {
  const auto [mode, index] = GetParam();
  const Case cs = Cases()[index];
  const Ref& c = cs.ref;
  const int64_t table = mode == PeMode::kCached ? 200000 : (mode == PeMode::kAuto ? 2048 : 0);
  const int64_t limit = mode == PeMode::kCached ? table : k2p24;
  const Rope rope(ToOptions(c, DHeadFor(c), mode, table));
  const int64_t r = c.r, half = r / 2;
  const long double af = RefAttentionFactor(c);
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> any(0, limit - 64);
  std::vector<int64_t> firsts = {0, 1000, 2040, limit - 64};
  for (int k = 0; k < 12; ++k) firsts.push_back(any(rng));
  testing::MaxError worst(r);  // rows of 64 positions follow one another
  std::vector<float> rows(64 * r);
  int64_t row0 = 0;
  for (int64_t first : firsts) {
    rope.FillCosSin(first, 64, rows.data());
    const auto inv = RefInvFreq(c, first + 64);
    for (int64_t j = 0; j < 64; ++j) {
      for (int64_t i = 0; i < half; ++i) {
        const long double angle = static_cast<long double>(first + j) * inv[i];
        const int64_t at = (row0 + j) * r;
        worst.Add(at + i, rows[j * r + i], af * cosl(angle));
        worst.Add(at + half + i, rows[j * r + half + i], af * sinl(angle));
      }
    }
    row0 += 64;
  }
  EXPECT_LE(worst, kExact * static_cast<double>(std::max<long double>(af, 1))) << cs.name;
  std::printf("cos/sin max abs error to %s: %-10s %-30s %.3g\n",
              mode == PeMode::kCached ? "2e5 " : "2^24", ToString(mode), cs.name, worst.value());
}

INSTANTIATE_TEST_SUITE_P(AllModes, RopeExactTest,
                         ::testing::Combine(::testing::Values(PeMode::kCached, PeMode::kOnTheFly,
                                                              PeMode::kAuto),
                                            ::testing::Range(0, 8)),
                         [](const auto& info) {
                           return std::string(ToString(std::get<0>(info.param))) + "_" +
                                  Cases()[std::get<1>(info.param)].name;
                         });

// The table of phasor pe --kind rope: (cos, sin) at each pair's slots.
TEST(RopeTest, TableFollowsTheLayout) {
  for (RopeLayout layout : {RopeLayout::kHalf, RopeLayout::kInterleaved}) {
    RopeOptions o;
    o.d_head = 8;
    o.layout = layout;
    o.mode = PeMode::kOnTheFly;
    const Rope rope(o);
    std::vector<float> t(8);
    rope.FillTable(1, 1, t.data());
    for (int i = 0; i < 4; ++i) {
      const double inv = std::pow(10000.0, -2.0 * i / 8);
      const int c = layout == RopeLayout::kHalf ? i : 2 * i;
      const int s = layout == RopeLayout::kHalf ? i + 4 : 2 * i + 1;
      EXPECT_NEAR(t[c], std::cos(inv), 1e-7);
      EXPECT_NEAR(t[s], std::sin(inv), 1e-7);
    }
  }
}

// ---------------------------------------------------------------------------
// The rotation of q and k against a long double twin.

// The q | k | v rows' shape: tokens = batch·seq.
struct QkvShape {
  int64_t batch, seq, d_model, n_heads;
};

// qkv: [tokens, 3·d_model] rotated by those formulas, in long double.
std::vector<long double> RefRotate(const std::vector<float>& qkv, const QkvShape& shape,
                                   const Ref& c, RopeLayout layout, int64_t offset) {
  const int64_t batch = shape.batch, seq = shape.seq, d_model = shape.d_model;
  const int64_t n_heads = shape.n_heads;
  std::vector<long double> out(qkv.begin(), qkv.end());
  const int64_t d_head = d_model / n_heads, half = c.r / 2;
  const auto inv = RefInvFreq(c, offset + seq);
  const long double af = RefAttentionFactor(c);
  for (int64_t t = 0; t < batch * seq; ++t) {
    const long double p = static_cast<long double>(offset + t % seq);
    for (int64_t h = 0; h < 2 * n_heads; ++h) {
      long double* x = out.data() + t * 3 * d_model + h * d_head;
      for (int64_t i = 0; i < half; ++i) {
        const int64_t a = layout == RopeLayout::kHalf ? i : 2 * i;
        const int64_t b = layout == RopeLayout::kHalf ? i + half : 2 * i + 1;
        const long double x0 = x[a], x1 = x[b];
        const long double cs = af * cosl(p * inv[i]), sn = af * sinl(p * inv[i]);
        x[a] = x0 * cs - x1 * sn;
        x[b] = x0 * sn + x1 * cs;
      }
    }
  }
  return out;
}

TEST(RopeTest, ApplyMatchesTheLongDoubleTwin) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  const int64_t batch = 3, seq = 37, d_model = 96, n_heads = 2;  // d_head 48
  for (RopeLayout layout : {RopeLayout::kHalf, RopeLayout::kInterleaved}) {
    for (const Case& cs : Cases()) {
      Ref c = cs.ref;
      c.r = std::min<int64_t>(c.r, 48);
      if (c.type == RopeScalingType::kYarn) c.r = 32;  // 16 dims pass through
      for (int64_t offset : {int64_t{0}, int64_t{4090}, k2p24 - seq}) {
        RopeOptions o = ToOptions(c, 48, PeMode::kAuto, 4096);
        o.layout = layout;
        o.offset = offset;
        const Rope rope(o);
        std::vector<float> qkv(batch * seq * 3 * d_model);
        for (float& v : qkv) v = normal(rng);
        const auto want = RefRotate(qkv, {batch, seq, d_model, n_heads}, c, layout, offset);
        const std::vector<float> before = qkv;
        rope.Apply(qkv.data(), batch, seq, d_model, n_heads);
        const testing::MaxError worst = testing::MaxAbsError(
            qkv.data(), want.data(), static_cast<int64_t>(qkv.size()), 3 * d_model);
        EXPECT_LE(worst, 2e-5) << cs.name << " " << ToString(layout) << " offset " << offset;
        // v and the pass-through dims are untouched, bit for bit.
        for (int64_t t = 0; t < batch * seq; ++t) {
          for (int64_t k = 0; k < 3 * d_model; ++k) {
            const bool rotated = k < 2 * d_model && (k % 48) < c.r;
            if (!rotated) {
              ASSERT_EQ(qkv[t * 3 * d_model + k], before[t * 3 * d_model + k]);
            }
          }
        }
      }
    }
  }
}

// q at m, k at n scores the same as q at m + t, k at n + t (q·k, unscaled).
double Score(const Rope& rope_q, const Rope& rope_k, const std::vector<float>& q,
             const std::vector<float>& k, int64_t d_head) {
  std::vector<float> a(3 * d_head, 0.0f), b(3 * d_head, 0.0f);
  std::copy(q.begin(), q.end(), a.begin());
  std::copy(k.begin(), k.end(), b.begin() + d_head);
  rope_q.Apply(a.data(), 1, 1, d_head, 1);
  rope_k.Apply(b.data(), 1, 1, d_head, 1);
  double s = 0;
  for (int64_t i = 0; i < d_head; ++i) s += static_cast<double>(a[i]) * b[d_head + i];
  return s;
}

TEST(RopeTest, ScoresDependOnRelativePositionOnly) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  double worst = 0;
  for (RopeLayout layout : {RopeLayout::kHalf, RopeLayout::kInterleaved}) {
    for (const Case& cs : Cases()) {
      if (cs.ref.type == RopeScalingType::kDynamic) continue;  // its ladder depends on L
      const int64_t d_head = DHeadFor(cs.ref);
      const auto rope_at = [&](int64_t pos) {
        RopeOptions o = ToOptions(cs.ref, d_head, PeMode::kOnTheFly, 0);
        o.layout = layout;
        o.offset = pos;
        return Rope(o);
      };
      for (int trial = 0; trial < 4; ++trial) {
        std::vector<float> q(d_head), k(d_head);
        for (float& v : q) v = normal(rng);
        for (float& v : k) v = normal(rng);
        for (const auto& [m, n] :
             {std::pair<int64_t, int64_t>{0, 5}, {3, 0}, {100, 1000}, {7, 7}, {0, 4000}}) {
          const double s0 = Score(rope_at(m), rope_at(n), q, k, d_head);
          for (int64_t t : {int64_t{1}, int64_t{1000}, int64_t{123457}, k2p24 - 5000}) {
            const double st = Score(rope_at(m + t), rope_at(n + t), q, k, d_head);
            worst = std::max(worst, std::fabs(st - s0));
            EXPECT_NEAR(st, s0, kScoreTol)
                << cs.name << " " << ToString(layout) << " m " << m << " n " << n << " t " << t;
          }
        }
      }
    }
  }
  std::printf("relative-position score: max |score(m+t, n+t) - score(m, n)| = %.3g\n", worst);
}

// Within one call (dynamic included: one L per call), rows at m, n and at
// m + t, n + t holding the same q and k score the same.
TEST(RopeTest, ScoresInsideOneCallDependOnDistanceForEveryType) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal;
  const int64_t seq = 5000;
  for (const Case& cs : Cases()) {
    const int64_t d_head = DHeadFor(cs.ref);
    RopeOptions o = ToOptions(cs.ref, d_head, PeMode::kAuto, 1024);
    const Rope rope(o);
    std::vector<float> qkv(seq * 3 * d_head);
    std::vector<float> q(d_head), k(d_head);
    for (float& v : q) v = normal(rng);
    for (float& v : k) v = normal(rng);
    const int64_t m = 10, n = 50, t = 4321;
    for (int64_t row : {m, m + t}) std::copy(q.begin(), q.end(), qkv.begin() + row * 3 * d_head);
    for (int64_t row : {n, n + t}) {
      std::copy(k.begin(), k.end(), qkv.begin() + row * 3 * d_head + d_head);
    }
    rope.Apply(qkv.data(), 1, seq, d_head, 1);
    const auto dot = [&](int64_t qi, int64_t ki) {
      double s = 0;
      for (int64_t i = 0; i < d_head; ++i) {
        s += static_cast<double>(qkv[qi * 3 * d_head + i]) * qkv[ki * 3 * d_head + d_head + i];
      }
      return s;
    };
    EXPECT_NEAR(dot(m, n), dot(m + t, n + t), kScoreTol) << cs.name;
  }
}

// ---------------------------------------------------------------------------
// Modes, threads, calls.

TEST(RopeTest, ModesAndThreadCountsGiveIdenticalBits) {
  for (const Case& cs : Cases()) {
    std::vector<std::vector<float>> results;
    for (PeMode mode : {PeMode::kCached, PeMode::kOnTheFly, PeMode::kAuto}) {
      for (int threads : {1, 2}) {
        SetNumThreads(threads);
        const Rope rope(
            ToOptions(cs.ref, DHeadFor(cs.ref), mode, mode == PeMode::kAuto ? 1500 : 3000));
        std::vector<float> rows(3000 * cs.ref.r);
        rope.FillCosSin(0, 3000, rows.data());
        results.push_back(rows);
      }
    }
    SetNumThreads(0);
    for (const auto& r : results) {
      EXPECT_EQ(0, std::memcmp(r.data(), results[0].data(), r.size() * sizeof(float))) << cs.name;
    }
  }
}

TEST(RopeTest, DynamicIsComputedPerCallAndThreadSafe) {
  Ref c;
  c.type = RopeScalingType::kDynamic;
  c.s = 4;
  c.l0 = 256;
  const Rope rope(ToOptions(c, 64, PeMode::kAuto, 256));
  // Two threads, different sequence lengths (so different L), many calls each.
  const auto run = [&](int64_t seq, std::vector<float>* out) {
    std::vector<float> rows(seq * 64);
    for (int k = 0; k < 50; ++k) rope.FillCosSin(0, seq, rows.data());
    *out = rows;
  };
  std::vector<float> a, b;
  std::thread ta(run, 300, &a), tb(run, 1000, &b);
  ta.join();
  tb.join();
  for (const auto& [seq, rows] :
       {std::pair<int64_t, const std::vector<float>*>{300, &a}, {1000, &b}}) {
    const auto inv = RefInvFreq(c, seq);
    testing::MaxError worst(64);
    for (int64_t j = 0; j < seq; ++j) {
      for (int64_t i = 0; i < 32; ++i) worst.Add(j * 64 + i, (*rows)[j * 64 + i], cosl(j * inv[i]));
    }
    EXPECT_LE(worst, kExact) << "seq " << seq;
  }
  // Within L0 the cached ladder is used: L = max(seq_end, L0) = L0.
  std::vector<float> small(100 * 64);
  rope.FillCosSin(0, 100, small.data());
  const auto inv = RefInvFreq(c, 256);
  EXPECT_NEAR(small[99 * 64 + 31], static_cast<double>(cosl(99 * inv[31])), kExact);
}

TEST(RopeTest, CachedPositionPastTableIsAnError) {
  RopeOptions o;
  o.d_head = 16;
  o.max_len = 100;
  o.mode = PeMode::kCached;
  const Rope rope(o);
  std::vector<float> qkv(3 * 16 * 200);
  EXPECT_NO_THROW(rope.Apply(qkv.data(), 1, 100, 16, 1));
  o.offset = 50;
  const Rope shifted(o);
  try {
    shifted.Apply(qkv.data(), 1, 51, 16, 1);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("position 100"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("max_len 100"), std::string::npos) << e.what();
  }
  o.mode = PeMode::kAuto;
  const Rope beyond(o);
  EXPECT_NO_THROW(beyond.Apply(qkv.data(), 1, 151, 16, 1));
  // A head dim other than the one it was made for.
  EXPECT_THROW(rope.Apply(qkv.data(), 1, 2, 32, 1), Error);
  EXPECT_NO_THROW(rope.Apply(qkv.data(), 0, 0, 16, 1));
}

}  // namespace
}  // namespace phasor

// RoPE against an independent long double evaluation of the formulas README gives:
// inverse frequencies of every scaling, cos/sin exactness to 2^24, the rotation
// of q and k, and the relative-position property of the scores.
#include "layers/rope.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/error.h"
#include "engine/parallel.h"
#include "tests/support/max_error.h"

namespace phasor {
namespace {

constexpr double kExact = 2e-6;       // cos/sin against long double, times the attention factor
constexpr double kInvFreqRel = 1e-6;  // inverse frequencies, relative
constexpr double kScoreTol = 1e-4;    // relative-position exactness of q·k (unscaled)
constexpr int64_t k2p24 = int64_t{1} << 24;
constexpr long double kPi = 3.141592653589793238462643383279502884L;

// ---------------------------------------------------------------------------
// The reference: written from the formulas in README ("Rotary position embedding"), sharing no code
// with layers/.

struct Ref {
  RopeScalingType type = RopeScalingType::kNone;
  int64_t r = 64;
  long double base = 10000, s = 1, l0 = 4096;
  long double beta_fast = 32, beta_slow = 1, lff = 1, hff = 4;
  long double attention_factor = -1;  // < 0: the default
};

std::vector<long double> RefInvFreq(const Ref& c, int64_t seq_end) {
  const int64_t half = c.r / 2;
  long double base = c.base;
  const long double e = static_cast<long double>(c.r) / (c.r - 2);
  if (c.type == RopeScalingType::kNtk) base = c.base * powl(c.s, e);
  if (c.type == RopeScalingType::kDynamic) {
    const long double l = std::max(static_cast<long double>(seq_end), c.l0);
    base = c.base * powl(c.s * l / c.l0 - (c.s - 1), e);
  }
  std::vector<long double> inv(half);
  for (int64_t i = 0; i < half; ++i) inv[i] = powl(base, -2.0L * i / c.r);
  for (int64_t i = 0; i < half; ++i) {
    const long double f = inv[i];
    switch (c.type) {
      case RopeScalingType::kLinear:
        inv[i] = f / c.s;
        break;
      case RopeScalingType::kLlama3: {
        const long double lambda = 2 * kPi / f;
        if (lambda < c.l0 / c.hff) {
          inv[i] = f;
        } else if (lambda > c.l0 / c.lff) {
          inv[i] = f / c.s;
        } else {
          const long double m = (c.l0 / lambda - c.lff) / (c.hff - c.lff);
          inv[i] = (1 - m) * f / c.s + m * f;
        }
        break;
      }
      case RopeScalingType::kYarn: {
        const auto corr = [&](long double b) {
          return c.r * logl(c.l0 / (2 * kPi * b)) / (2 * logl(c.base));
        };
        long double low = floorl(corr(c.beta_fast)), high = ceill(corr(c.beta_slow));
        low = std::min<long double>(std::max<long double>(low, 0), c.r - 1);
        high = std::min<long double>(std::max<long double>(high, 0), c.r - 1);
        if (low == high) high += 0.001L;
        long double ramp = (i - low) / (high - low);
        ramp = std::min<long double>(std::max<long double>(ramp, 0), 1);
        inv[i] = f * (1 - ramp) + f / c.s * ramp;
        break;
      }
      default:
        break;
    }
  }
  return inv;
}

long double RefAttentionFactor(const Ref& c) {
  if (c.type != RopeScalingType::kYarn) return 1;
  if (c.attention_factor >= 0) return c.attention_factor;
  return c.s > 1 ? 0.1L * logl(c.s) + 1 : 1;
}

RopeOptions ToOptions(const Ref& c, int64_t d_head, PeMode mode, int64_t max_len) {
  RopeOptions o;
  o.d_head = d_head;
  o.rotary_dim = c.r;
  o.base = static_cast<double>(c.base);
  o.mode = mode;
  o.max_len = max_len;
  o.scaling.type = c.type;
  o.scaling.factor = static_cast<double>(c.s);
  o.scaling.original_max_len = static_cast<int64_t>(c.l0);
  o.scaling.beta_fast = static_cast<double>(c.beta_fast);
  o.scaling.beta_slow = static_cast<double>(c.beta_slow);
  if (c.attention_factor >= 0) o.scaling.attention_factor = static_cast<double>(c.attention_factor);
  o.scaling.low_freq_factor = static_cast<double>(c.lff);
  o.scaling.high_freq_factor = static_cast<double>(c.hff);
  return o;
}

// Named cases covering every type, each with parameters where its formula's
// branches all occur (yarn's ramp and llama3's smooth band inside the ladder).
struct Case {
  const char* name;
  Ref ref;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  Ref none;
  cases.push_back({"none", none});
  Ref linear;
  linear.type = RopeScalingType::kLinear;
  linear.s = 4;
  cases.push_back({"linear", linear});
  Ref ntk;
  ntk.type = RopeScalingType::kNtk;
  ntk.s = 8;
  cases.push_back({"ntk", ntk});
  Ref dynamic;
  dynamic.type = RopeScalingType::kDynamic;
  dynamic.s = 2;
  dynamic.l0 = 2048;
  cases.push_back({"dynamic", dynamic});
  Ref yarn;
  yarn.type = RopeScalingType::kYarn;
  yarn.s = 16;
  yarn.l0 = 4096;
  cases.push_back({"yarn", yarn});
  Ref yarn_af = yarn;
  yarn_af.attention_factor = 0.75L;
  yarn_af.beta_fast = 16;
  yarn_af.beta_slow = 2;
  yarn_af.r = 48;
  cases.push_back({"yarn_attention_factor_partial", yarn_af});
  Ref llama3;
  llama3.type = RopeScalingType::kLlama3;
  llama3.r = 128;
  llama3.base = 500000;
  llama3.s = 8;
  llama3.l0 = 8192;
  cases.push_back({"llama3", llama3});
  Ref ntk_small = ntk;
  ntk_small.r = 4;
  cases.push_back({"ntk_r4", ntk_small});
  return cases;
}

int64_t DHeadFor(const Ref& c) { return std::max<int64_t>(c.r, 64); }

// ---------------------------------------------------------------------------

TEST(RopeTest, InverseFrequenciesOfEveryScalingMatchTheFormulas) {
  for (const Case& cs : Cases()) {
    const Ref& c = cs.ref;
    double worst = 0;
    for (int64_t seq_end :
         {int64_t{1}, static_cast<int64_t>(c.l0), int64_t{5000}, int64_t{100000}}) {
      const RopeOptions o = ToOptions(c, DHeadFor(c), PeMode::kOnTheFly, 0);
      const std::vector<double> got = RopeInverseFrequencies(o, seq_end);
      const std::vector<long double> want = RefInvFreq(c, seq_end);
      ASSERT_EQ(got.size(), want.size()) << cs.name;
      for (size_t i = 0; i < got.size(); ++i) {
        const double rel = static_cast<double>(fabsl(got[i] - want[i]) / want[i]);
        worst = std::max(worst, rel);
        EXPECT_LE(rel, kInvFreqRel) << cs.name << " i " << i << " seq_end " << seq_end;
      }
    }
    std::printf("inv_freq %-30s max relative error %.3g\n", cs.name, worst);
    // The Rope's own ladder is the one at L0.
    const Rope rope(ToOptions(c, DHeadFor(c), PeMode::kOnTheFly, 0));
    const auto want = RefInvFreq(c, static_cast<int64_t>(c.l0));
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_LE(fabsl(rope.inv_freq()[i] - want[i]) / want[i], kInvFreqRel) << cs.name;
    }
    EXPECT_NEAR(rope.attention_factor(), static_cast<double>(RefAttentionFactor(c)), 1e-15)
        << cs.name;
  }
}

TEST(RopeTest, ScalingsChangeWhatTheyShould) {
  Ref c;
  c.type = RopeScalingType::kYarn;
  c.s = 16;
  const auto plain = RefInvFreq(Ref{}, 1);
  const Rope yarn(ToOptions(c, 64, PeMode::kOnTheFly, 0));
  // Fast pairs keep inv_i, slow pairs take inv_i / s, some pairs lie between.
  EXPECT_EQ(yarn.inv_freq()[0], static_cast<double>(plain[0]));
  EXPECT_NEAR(yarn.inv_freq()[31], static_cast<double>(plain[31] / 16), 1e-20);
  int between = 0;
  for (int i = 0; i < 32; ++i) {
    const long double ratio = plain[i] / yarn.inv_freq()[i];
    between += ratio > 1.0001L && ratio < 15.999L;
  }
  EXPECT_GT(between, 5);
  EXPECT_NEAR(yarn.attention_factor(), 0.1 * std::log(16.0) + 1, 1e-15);
  // Dynamic equals no scaling up to L0 and ntk-like past it.
  Ref d;
  d.type = RopeScalingType::kDynamic;
  d.s = 4;
  d.l0 = 1000;
  const auto at_l0 = RopeInverseFrequencies(ToOptions(d, 64, PeMode::kOnTheFly, 0), 1000);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(at_l0[i], RopeInverseFrequencies(RopeOptions{}, 1)[i]);
  const auto past = RopeInverseFrequencies(ToOptions(d, 64, PeMode::kOnTheFly, 0), 3000);
  EXPECT_LT(past[31], at_l0[31]);
}

// Golden numbers from tests/data/make_golden.py: HF's own functions
// (_compute_*_parameters, transcribed, in float64) for the same cases.
TEST(RopeTest, InverseFrequenciesMatchHuggingFaceFormulasFromPython) {
  const std::string path = std::string(PHASOR_TEST_DATA) + "/golden/rope_inv_freq/inv_freq.txt";
  FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr) << path;
  std::string text;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  std::fclose(f);
  // A tiny reader for the flat format the script writes: one case a line,
  // "name type r base factor l0 seq_end bf bs af lff hff : v0 v1 ...".
  std::istringstream lines(text);
  std::string line;
  int cases = 0;
  double worst = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string name, type;
    Ref c;
    double base, s, l0, bf, bs, af, lff, hff;
    int64_t r, seq_end;
    std::string colon;
    in >> name >> type >> r >> base >> s >> l0 >> seq_end >> bf >> bs >> af >> lff >> hff >> colon;
    ASSERT_EQ(colon, ":") << line;
    c.type = ParseRopeScalingType(type);
    c.r = r;
    c.base = base;
    c.s = s;
    c.l0 = l0;
    c.beta_fast = bf;
    c.beta_slow = bs;
    c.attention_factor = af;
    c.lff = lff;
    c.hff = hff;
    const RopeOptions o = ToOptions(c, r, PeMode::kOnTheFly, 0);
    const auto got = RopeInverseFrequencies(o, seq_end);
    std::vector<double> want;
    for (double v; in >> v;) want.push_back(v);
    ASSERT_EQ(got.size(), want.size() - 1) << line;  // the last value: attention factor
    for (size_t i = 0; i < got.size(); ++i) {
      const double rel = std::fabs(got[i] - want[i]) / want[i];
      worst = std::max(worst, rel);
      EXPECT_LE(rel, kInvFreqRel) << name << " i " << i;
    }
    EXPECT_NEAR(RopeAttentionFactor(o), want.back(), 1e-12) << name;
    ++cases;
  }
  EXPECT_GE(cases, 6);
  std::printf("inv_freq vs HF formulas (python, %d cases): max relative error %.3g\n", cases,
              worst);
}

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

// qkv: [tokens, 3·d_model] rotated by those formulas, in long double.
std::vector<long double> RefRotate(const std::vector<float>& qkv, int64_t batch, int64_t seq,
                                   int64_t d_model, int64_t n_heads, const Ref& c,
                                   RopeLayout layout, int64_t offset) {
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
        const auto want = RefRotate(qkv, batch, seq, d_model, n_heads, c, layout, offset);
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

TEST(RopeTest, BadOptionsNameTheKey) {
  const auto problem = [](auto edit) {
    RopeOptions o;
    o.d_head = 64;
    edit(o);
    const auto p = FindRopeProblem(o);
    EXPECT_TRUE(p.has_value());
    try {
      Rope rope(o);
      ADD_FAILURE() << "no Error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(p ? p->key : "?"), std::string::npos) << e.what();
    }
    return p ? p->key : std::string();
  };
  EXPECT_EQ(problem([](RopeOptions& o) { o.rotary_dim = 7; }), "rotary_dim");
  EXPECT_EQ(problem([](RopeOptions& o) { o.rotary_dim = 66; }), "rotary_dim");
  EXPECT_EQ(problem([](RopeOptions& o) { o.d_head = 1; }), "rotary_dim");
  EXPECT_EQ(problem([](RopeOptions& o) {
              o.rotary_dim = 2;
              o.scaling.type = RopeScalingType::kNtk;
              o.scaling.factor = 2;
            }),
            "rotary_dim");
  EXPECT_EQ(problem([](RopeOptions& o) {
              o.rotary_dim = 2;
              o.scaling.type = RopeScalingType::kDynamic;
              o.scaling.factor = 2;
            }),
            "rotary_dim");
  EXPECT_EQ(problem([](RopeOptions& o) { o.base = 1; }), "base");
  for (double bad : {0.0, -1.0, std::nan(""), static_cast<double>(INFINITY)}) {
    EXPECT_EQ(problem([&](RopeOptions& o) {
                o.scaling.type = RopeScalingType::kLinear;
                o.scaling.factor = bad;
              }),
              "scaling.factor");
  }
  EXPECT_EQ(problem([](RopeOptions& o) {
              o.scaling.type = RopeScalingType::kYarn;
              o.scaling.factor = 2;
              o.max_len = 0;
            }),
            "scaling.original_max_len");
  EXPECT_EQ(problem([](RopeOptions& o) {
              o.scaling.type = RopeScalingType::kYarn;
              o.scaling.factor = 2;
              o.scaling.beta_fast = 0.5;
            }),
            "scaling.beta_fast");
  EXPECT_EQ(problem([](RopeOptions& o) {
              o.scaling.type = RopeScalingType::kYarn;
              o.scaling.factor = 2;
              o.scaling.attention_factor = 0;
            }),
            "scaling.attention_factor");
  EXPECT_EQ(problem([](RopeOptions& o) {
              o.scaling.type = RopeScalingType::kLlama3;
              o.scaling.factor = 2;
              o.scaling.high_freq_factor = 1;
            }),
            "scaling.high_freq_factor");
  RopeOptions ok;
  ok.rotary_dim = 2;
  ok.d_head = 2;
  EXPECT_FALSE(FindRopeProblem(ok).has_value());
  EXPECT_THROW(ParseRopeScalingType("ntk-aware"), Error);
  EXPECT_THROW(ParseRopeLayout("split"), Error);
}

}  // namespace
}  // namespace phasor

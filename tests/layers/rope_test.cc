// RoPE's options, inverse frequencies and scalings against an independent long
// double evaluation of the formulas README gives (tests/support/rope_reference.h),
// and against HF's own formulas run in Python. The rows and the rotation of q and
// k: rope_apply_test.cc.
#include "layers/rope.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "engine/error.h"
#include "tests/support/paths.h"
#include "tests/support/rope_reference.h"

namespace phasor {
namespace {

using testing::Case;
using testing::Cases;
using testing::DHeadFor;
using testing::kInvFreqRel;
using testing::Ref;
using testing::RefAttentionFactor;
using testing::RefInvFreq;
using testing::ToOptions;

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
  const std::string path =
      std::string(phasor::testing::kTestDataDir) + "/golden/rope_inv_freq/inv_freq.txt";
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

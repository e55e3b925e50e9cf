// The reference for the RoPE tests: the inverse frequencies and attention factor
// of every scaling, evaluated in long double from the formulas README gives, the
// named cases the tests run over, and the tolerances they hold to.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "layers/rope.h"

namespace phasor::testing {

inline constexpr double kExact = 2e-6;  // cos/sin against long double, times the attention factor
inline constexpr double kInvFreqRel = 1e-6;  // inverse frequencies, relative
inline constexpr double kScoreTol = 1e-4;    // relative-position exactness of q·k (unscaled)
inline constexpr int64_t k2p24 = int64_t{1} << 24;
inline constexpr long double kPi = 3.141592653589793238462643383279502884L;

// Written from the formulas in README ("Rotary position embedding"), sharing no
// code with layers/: only the option types are layers/rope.h's.

struct Ref {
  RopeScalingType type = RopeScalingType::kNone;
  int64_t r = 64;
  long double base = 10000, s = 1, l0 = 4096;
  long double beta_fast = 32, beta_slow = 1, lff = 1, hff = 4;
  long double attention_factor = -1;  // < 0: the default
};

inline std::vector<long double> RefInvFreq(const Ref& c, int64_t seq_end) {
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
      case RopeScalingType::kGte:  // Alibaba's form, written out: base^(-2i/r)·s^(-(2i+2)/r)
        inv[i] = powl(c.base, -2.0L * i / c.r) * powl(c.s, -(2.0L * i + 2) / c.r);
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

inline long double RefAttentionFactor(const Ref& c) {
  if (c.type != RopeScalingType::kYarn) return 1;
  if (c.attention_factor >= 0) return c.attention_factor;
  return c.s > 1 ? 0.1L * logl(c.s) + 1 : 1;
}

inline RopeOptions ToOptions(const Ref& c, int64_t d_head, PeMode mode, int64_t max_len) {
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

inline std::vector<Case> Cases() {
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
  Ref gte;
  gte.type = RopeScalingType::kGte;
  gte.s = 2;
  gte.base = 500000;
  cases.push_back({"gte", gte});
  Ref ntk_small = ntk;
  ntk_small.r = 4;
  cases.push_back({"ntk_r4", ntk_small});
  return cases;
}

inline int64_t DHeadFor(const Ref& c) { return std::max<int64_t>(c.r, 64); }

}  // namespace phasor::testing

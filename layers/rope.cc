#include "layers/rope.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>

#include "engine/error.h"
#include "engine/parallel.h"
#include "layers/frequencies.h"
#include "layers/library_angles.h"

namespace phasor {
namespace {

constexpr long double kPi = 3.141592653589793238462643383279502884L;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}
std::string Num(int64_t v) { return std::to_string(v); }

bool UsesOriginalMaxLen(RopeScalingType t) {
  return t == RopeScalingType::kDynamic || t == RopeScalingType::kYarn ||
         t == RopeScalingType::kLlama3;
}

// Dynamic scaling past L0: the rows for one L, made on this thread and kept
// while the same Rope asks for the same L. Never shared between threads.
struct DynamicRows {
  uint64_t owner = 0;
  int64_t seq_len = -1;
  RotationRows rows;
};
thread_local DynamicRows tls_dynamic;

// cos/sin rows made by one task of Apply: [kApplyRows, r].
thread_local AlignedFloats tls_cos_sin;
constexpr int64_t kApplyRows = 4 * RotationRows::kBlock;

// The engine's options for cos | sin rows of o's inverse frequencies for a
// call ending at seq_end: exact, or the float32 library's.
RotationOptions EngineOptions(const RopeOptions& ro, int64_t seq_end, double amplitude, PeMode mode,
                              int64_t max_len) {
  RotationOptions o;
  if (ro.angles == RopeAngles::kLibrary) {
    const std::vector<float> inv = LibraryInverseFrequencies(ro, seq_end);
    o.freq.assign(inv.begin(), inv.end());
    o.float32_angles = true;
  } else {
    o.freq = RopeInverseFrequenciesLong(ro, seq_end);
  }
  o.amplitude = amplitude;
  o.layout = {kernels::PairSlots::kHalves, /*cos_first=*/true};
  o.mode = mode;
  o.max_len = mode == PeMode::kOnTheFly ? 0 : max_len;
  o.table_name = "RoPE";
  return o;
}

std::atomic<uint64_t> next_id{1};

}  // namespace

RopeLayout ParseRopeLayout(const std::string& s) {
  if (s == "half") return RopeLayout::kHalf;
  if (s == "interleaved") return RopeLayout::kInterleaved;
  throw Error("unknown RoPE layout '" + s + "', expected 'half' or 'interleaved'");
}

RopeScalingType ParseRopeScalingType(const std::string& s) {
  if (s == "none") return RopeScalingType::kNone;
  if (s == "linear") return RopeScalingType::kLinear;
  if (s == "ntk") return RopeScalingType::kNtk;
  if (s == "dynamic") return RopeScalingType::kDynamic;
  if (s == "yarn") return RopeScalingType::kYarn;
  if (s == "llama3") return RopeScalingType::kLlama3;
  if (s == "gte") return RopeScalingType::kGte;
  throw Error("unknown RoPE scaling type '" + s +
              "', expected one of none, linear, ntk, dynamic, yarn, llama3, gte");
}

RopeAngles ParseRopeAngles(const std::string& s) {
  if (s == "exact") return RopeAngles::kExact;
  if (s == "library") return RopeAngles::kLibrary;
  throw Error("unknown rotary angles '" + s + "', expected 'exact' or 'library'");
}

const char* ToString(RopeAngles v) { return v == RopeAngles::kExact ? "exact" : "library"; }

const char* ToString(RopeLayout v) { return v == RopeLayout::kHalf ? "half" : "interleaved"; }

const char* ToString(RopeScalingType v) {
  switch (v) {
    case RopeScalingType::kNone:
      return "none";
    case RopeScalingType::kLinear:
      return "linear";
    case RopeScalingType::kNtk:
      return "ntk";
    case RopeScalingType::kDynamic:
      return "dynamic";
    case RopeScalingType::kYarn:
      return "yarn";
    case RopeScalingType::kLlama3:
      return "llama3";
    case RopeScalingType::kGte:
      return "gte";
  }
  return "?";
}

std::optional<RopeProblem> FindRopeProblem(const RopeOptions& o) {
  const RopeScaling& sc = o.scaling;
  const int64_t r = o.r();
  if (o.d_head < 2) return RopeProblem{"rotary_dim", "the head dim " + Num(o.d_head) + " is < 2"};
  if (o.rotary_dim < 0) {
    return RopeProblem{"rotary_dim", Num(o.rotary_dim) + " is out of range, expected >= 2"};
  }
  if (r % 2 != 0) return RopeProblem{"rotary_dim", Num(r) + " is odd, expected an even number"};
  if (r < 2) return RopeProblem{"rotary_dim", Num(r) + " is out of range, expected >= 2"};
  if (r > o.d_head) {
    return RopeProblem{"rotary_dim", Num(r) + " is larger than the head dim " + Num(o.d_head) +
                                         " (d_model / n_heads)"};
  }
  if (r < 4 && (sc.type == RopeScalingType::kNtk || sc.type == RopeScalingType::kDynamic)) {
    return RopeProblem{"rotary_dim", Num(r) + " is too small for scaling type '" +
                                         ToString(sc.type) +
                                         "', expected >= 4 (its base is raised to r/(r-2))"};
  }
  if (!std::isfinite(o.base) || o.base <= 1) {
    return RopeProblem{"base", Num(o.base) + " is out of range, expected a finite number > 1"};
  }
  if (o.offset < 0) return RopeProblem{"offset", Num(o.offset) + " is negative"};
  if (o.max_len < 0) return RopeProblem{"max_len", Num(o.max_len) + " is negative"};
  if (sc.type == RopeScalingType::kNone) return std::nullopt;
  if (!std::isfinite(sc.factor) || sc.factor <= 0) {
    return RopeProblem{"scaling.factor",
                       Num(sc.factor) + " is out of range, expected a finite number > 0"};
  }
  if (sc.original_max_len < 0 || (UsesOriginalMaxLen(sc.type) && o.original_max_len() <= 0)) {
    return RopeProblem{"scaling.original_max_len",
                       Num(o.original_max_len()) + " is out of range, expected > 0"};
  }
  if (sc.type == RopeScalingType::kYarn) {
    if (!std::isfinite(sc.beta_slow) || sc.beta_slow <= 0) {
      return RopeProblem{"scaling.beta_slow",
                         Num(sc.beta_slow) + " is out of range, expected a finite number > 0"};
    }
    if (!std::isfinite(sc.beta_fast) || sc.beta_fast <= sc.beta_slow) {
      return RopeProblem{"scaling.beta_fast", Num(sc.beta_fast) +
                                                  " is out of range, expected a finite number > "
                                                  "beta_slow " +
                                                  Num(sc.beta_slow)};
    }
    if (sc.attention_factor &&
        (!std::isfinite(*sc.attention_factor) || *sc.attention_factor <= 0)) {
      return RopeProblem{"scaling.attention_factor", Num(*sc.attention_factor) +
                                                         " is out of range, expected a finite "
                                                         "number > 0"};
    }
  }
  if (sc.type == RopeScalingType::kLlama3) {
    if (!std::isfinite(sc.low_freq_factor) || sc.low_freq_factor <= 0) {
      return RopeProblem{"scaling.low_freq_factor", Num(sc.low_freq_factor) +
                                                        " is out of range, expected a finite "
                                                        "number > 0"};
    }
    if (!std::isfinite(sc.high_freq_factor) || sc.high_freq_factor <= sc.low_freq_factor) {
      return RopeProblem{"scaling.high_freq_factor",
                         Num(sc.high_freq_factor) +
                             " is out of range, expected a finite number > low_freq_factor " +
                             Num(sc.low_freq_factor)};
    }
  }
  return std::nullopt;
}

std::vector<double> RopeInverseFrequencies(const RopeOptions& o, int64_t seq_end) {
  const std::vector<long double> inv = RopeInverseFrequenciesLong(o, seq_end);
  return std::vector<double>(inv.begin(), inv.end());
}

std::vector<long double> RopeInverseFrequenciesLong(const RopeOptions& o, int64_t seq_end) {
  const RopeScaling& sc = o.scaling;
  const int64_t r = o.r();
  const int64_t half = r / 2;
  const long double s = sc.factor;
  const long double base = o.base;
  const long double l0 = static_cast<long double>(o.original_max_len());
  const long double ntk_power = static_cast<long double>(r) / static_cast<long double>(r - 2);
  std::vector<long double> inv;
  switch (sc.type) {
    case RopeScalingType::kNtk:
      inv = FrequencyLadderLong(r, base * std::pow(s, ntk_power), PeDenominator::kDModel);
      break;
    case RopeScalingType::kGte:
      inv = FrequencyLadderLong(r, base * s, PeDenominator::kDModel);
      for (auto& f : inv) f /= std::pow(s, 2.0L / static_cast<long double>(r));
      break;
    case RopeScalingType::kDynamic: {
      const long double l = std::max(l0, static_cast<long double>(seq_end));
      inv = FrequencyLadderLong(r, base * std::pow(s * l / l0 - (s - 1), ntk_power),
                                PeDenominator::kDModel);
      break;
    }
    default:
      inv = FrequencyLadderLong(r, base, PeDenominator::kDModel);
      break;
  }
  if (sc.type == RopeScalingType::kLinear) {
    for (auto& f : inv) f /= s;
  } else if (sc.type == RopeScalingType::kLlama3) {
    const long double lff = sc.low_freq_factor, hff = sc.high_freq_factor;
    const long double low_freq_wavelen = l0 / lff, high_freq_wavelen = l0 / hff;
    for (auto& f : inv) {
      const long double wavelen = 2 * kPi / f;
      if (wavelen < high_freq_wavelen) continue;  // high frequency: kept
      if (wavelen > low_freq_wavelen) {
        f /= s;  // low frequency: interpolated
      } else {
        const long double m = (l0 / wavelen - lff) / (hff - lff);
        f = (1 - m) * f / s + m * f;
      }
    }
  } else if (sc.type == RopeScalingType::kYarn) {
    const auto corr = [&](long double b) {
      return static_cast<long double>(r) * std::log(l0 / (2 * kPi * b)) / (2 * std::log(base));
    };
    const long double top = static_cast<long double>(r - 1);
    const long double low = std::clamp(std::floor(corr(sc.beta_fast)), 0.0L, top);
    long double high = std::clamp(std::ceil(corr(sc.beta_slow)), 0.0L, top);
    if (low == high) high += 0.001L;
    for (int64_t i = 0; i < half; ++i) {
      const long double ramp =
          std::clamp((static_cast<long double>(i) - low) / (high - low), 0.0L, 1.0L);
      inv[i] = inv[i] * (1 - ramp) + inv[i] / s * ramp;
    }
  }
  return inv;
}

double RopeAttentionFactor(const RopeOptions& o) {
  const RopeScaling& sc = o.scaling;
  if (sc.type != RopeScalingType::kYarn) return 1.0;
  if (sc.attention_factor) return *sc.attention_factor;
  return sc.factor > 1
             ? static_cast<double>(0.1L * std::log(static_cast<long double>(sc.factor)) + 1.0L)
             : 1.0;
}

Rope::Rope(const RopeOptions& options) : options_(options) {
  if (const auto problem = FindRopeProblem(options)) {
    throw Error("RoPE " + problem->key + ": " + problem->what);
  }
  r_ = options.r();
  attention_factor_ = RopeAttentionFactor(options);
  rows_.Init(EngineOptions(options, options.original_max_len(), attention_factor_, options.mode,
                           options.max_len));
  id_ = next_id.fetch_add(1);
}

void Rope::CheckRange(int64_t first_pos, int64_t n) const { rows_.CheckRange(first_pos, n); }

const RotationRows& Rope::RowsFor(int64_t seq_end) const {
  if (options_.scaling.type != RopeScalingType::kDynamic ||
      seq_end <= options_.original_max_len()) {
    return rows_;
  }
  DynamicRows& d = tls_dynamic;
  if (d.owner != id_ || d.seq_len != seq_end) {
    d.rows.Init(EngineOptions(options_, seq_end, attention_factor_, PeMode::kOnTheFly, 0));
    d.owner = id_;
    d.seq_len = seq_end;
  }
  return d.rows;
}

void Rope::FillCosSin(int64_t first_pos, int64_t n, float* out) const {
  CheckRange(first_pos, n);
  if (n == 0) return;
  RowsFor(first_pos + n).Fill(first_pos, n, out);
}

void Rope::FillTable(int64_t first_pos, int64_t n, float* out) const {
  FillCosSin(first_pos, n, out);  // [n, r]: cos | sin, the half layout already
  if (options_.layout == RopeLayout::kHalf) return;
  const int64_t half = r_ / 2;
  std::vector<float> row(static_cast<size_t>(r_));
  for (int64_t j = 0; j < n; ++j) {
    float* o = out + j * r_;
    std::copy(o, o + r_, row.begin());
    for (int64_t i = 0; i < half; ++i) {
      o[2 * i] = row[i];
      o[2 * i + 1] = row[half + i];
    }
  }
}

void Rope::ApplyAt(float* qkv, int64_t batch, int64_t seq, int64_t first_pos, int64_t d_model,
                   int64_t n_heads) const {
  if (n_heads < 1 || d_model % n_heads != 0 || d_model / n_heads != options_.d_head) {
    throw Error("RoPE made for head dim " + std::to_string(options_.d_head) +
                " applied to d_model " + std::to_string(d_model) + " with " +
                std::to_string(n_heads) + " heads");
  }
  ApplyAt(qkv, batch, seq, first_pos, QkvLayout::Even(d_model, n_heads));
}

void Rope::ApplyAt(float* qkv, int64_t batch, int64_t seq, int64_t first_pos,
                   const QkvLayout& layout) const {
  if (batch < 0 || seq < 0) throw Error("RoPE: negative batch or sequence length");
  if (layout.q_heads < 1 || layout.kv_heads < 0 || layout.d_head != options_.d_head) {
    throw Error("RoPE made for head dim " + std::to_string(options_.d_head) +
                " applied to heads of " + std::to_string(layout.d_head));
  }
  if (batch * seq == 0) return;
  CheckRange(first_pos, seq);  // here, not inside a task
  // The dynamic scaling's engine lives in the calling thread's storage: the
  // tasks use it through this reference.
  const RotationRows& rows = RowsFor(first_pos + seq);
  const int64_t r = r_, half = r_ / 2, d_head = options_.d_head;
  const kernels::PairSlots slots = options_.layout == RopeLayout::kHalf
                                       ? kernels::PairSlots::kHalves
                                       : kernels::PairSlots::kAdjacent;
  // Rows of q | k | v; v untouched. q's heads and k's sit side by side.
  const int64_t ld = layout.row(), heads = layout.q_heads + layout.kv_heads;
  RotationRows::ForEachTask(batch, first_pos, seq, r, [&](int64_t b, int64_t p0, int64_t p1) {
    AlignedFloats& buf = tls_cos_sin;
    if (static_cast<int64_t>(buf.size()) < kApplyRows * r) buf.resize(kApplyRows * r);
    for (int64_t c0 = p0; c0 < p1; c0 += kApplyRows) {
      const int64_t m = std::min(kApplyRows, p1 - c0);
      const float* cs;  // [m, r]: cos | sin per position
      if (c0 + m <= rows.table_rows()) {
        cs = rows.table() + c0 * r;
      } else {
        rows.FillSerial(c0, m, nullptr, buf.data());
        cs = buf.data();
      }
      for (int64_t j = 0; j < m; ++j) {
        const float* c = cs + j * r;
        float* row = qkv + (b * seq + (c0 + j - first_pos)) * ld;
        kernels::RotateHeads({row, heads, d_head, c, c + half, half, slots});  // q and k
      }
    }
  });
}

}  // namespace phasor

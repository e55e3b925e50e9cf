// Rotary position embedding (RoPE; Su et al., RoFormer) with the
// context-extension scalings of published implementations.
//
// Applied to q and k of every head after the in-projection, at position
// p = offset + j (token j of a sequence): the first rotary_dim r dims of a head
// form r/2 pairs, each turned by θ_i = p·inv_i,
//   (x0, x1) -> (x0·cos θ_i − x1·sin θ_i,  x0·sin θ_i + x1·cos θ_i),
//   inv_i = base^(−2i/r), i = 0 .. r/2 − 1, then changed by the scaling;
// dims r .. d_head − 1 pass through. Layout "half" pairs (i, i + r/2) (GPT-NeoX,
// Llama, HF rotate_half); "interleaved" pairs (2i, 2i + 1) (RoFormer, GPT-J,
// Meta's Llama reference, llama.cpp normal mode). A shift of every position by
// t turns q and k alike, so q·k depends on the distance alone.
//
// Scalings (s = factor, L0 = original_max_len, default max_len):
//   linear   inv_i / s                                  (HF "linear", Chen et al. 2023)
//   ntk      base -> base·s^(r/(r−2))                   ("NTK-aware", bloc97 2023)
//   gte      base -> base·s, then inv_i / s^(2/r)          (Alibaba GTE v1.5's
//            NTKScalingRotaryEmbedding: inv_i = base^(−2i/r)·s^(−(2i+2)/r))
//   dynamic  base -> base·(s·L/L0 − (s−1))^(r/(r−2)),   (HF "dynamic")
//            L = max(offset + padded batch length, L0), per call
//   llama3   HF _compute_llama3_parameters (low_freq_factor, high_freq_factor)
//   yarn     HF _compute_yarn_parameters (beta_fast, beta_slow); cos and sin
//            are multiplied by attention_factor (default 0.1·ln s + 1 if s > 1)
//
// cos/sin rows come from the rotation engine (rotation_rows.h: exact block
// rotation, within 2e-6 of the long double formula, times attention_factor,
// for every position below kMaxPosition = 2^40), cached for max_len rows or
// made on the fly (PeMode); the scalings change the frequency ladder
// (frequencies.h) alone. With angles kLibrary, the angles are those of the
// models' own float32 code instead (layers/library_angles.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "layers/positional.h"
#include "layers/qk_rotation.h"
#include "layers/rotation_rows.h"

namespace phasor {

enum class RopeLayout {
  kHalf,         // pairs (i, i + r/2): GPT-NeoX, Llama (HF rotate_half)
  kInterleaved,  // pairs (2i, 2i + 1): RoFormer, GPT-J, llama.cpp normal mode
};

enum class RopeScalingType { kNone, kLinear, kNtk, kDynamic, kYarn, kLlama3, kGte };

// How each angle p·inv_i is formed.
enum class RopeAngles {
  kExact,    // p·inv_i exact (long double; frequencies.h ReducedAngle)
  kLibrary,  // as the Hugging Face code in float32: inv_i and p·inv_i rounded to
             // float32 (layers/library_angles.h); cos and sin of that angle
};

// Spellings as in config.json ("half", "interleaved"; "none", "linear", "ntk",
// "dynamic", "yarn", "llama3", "gte"); Error naming the accepted values otherwise.
RopeLayout ParseRopeLayout(const std::string& s);
RopeScalingType ParseRopeScalingType(const std::string& s);
// "exact", "library"; Error "unknown rotary angles 'x', expected 'exact' or
// 'library'" otherwise.
RopeAngles ParseRopeAngles(const std::string& s);
const char* ToString(RopeLayout v);
const char* ToString(RopeScalingType v);
const char* ToString(RopeAngles v);

struct RopeScaling {
  RopeScalingType type = RopeScalingType::kNone;
  double factor = 1.0;                     // s (every type but none)
  int64_t original_max_len = 0;            // L0 (dynamic, yarn, llama3); 0: max_len
  double beta_fast = 32.0;                 // yarn
  double beta_slow = 1.0;                  // yarn
  std::optional<double> attention_factor;  // yarn; unset: 0.1·ln s + 1 if s > 1, else 1
  double low_freq_factor = 1.0;            // llama3
  double high_freq_factor = 4.0;           // llama3
};

struct RopeOptions {
  int64_t d_head = 64;
  int64_t rotary_dim = 0;  // r; 0: d_head
  double base = 10000.0;
  RopeLayout layout = RopeLayout::kHalf;
  int64_t offset = 0;      // position of token 0 of every sequence
  int64_t max_len = 4096;  // rows of the cached table; the default L0
  PeMode mode = PeMode::kAuto;
  RopeScaling scaling;
  RopeAngles angles = RopeAngles::kExact;

  int64_t r() const { return rotary_dim > 0 ? rotary_dim : d_head; }
  int64_t original_max_len() const {
    return scaling.original_max_len > 0 ? scaling.original_max_len : max_len;
  }
};

// A problem with RopeOptions: key is the config.json key under "positional"
// (e.g. "rotary_dim", "scaling.factor"), what says what is wrong.
struct RopeProblem {
  std::string key;
  std::string what;
};

// The first problem found, if any: rotary_dim odd, < 2, > d_head, or < 4 with
// ntk or dynamic; base not finite > 1; offset < 0; max_len < 0; factor not
// finite > 0 (any type but none); L0 <= 0 (dynamic, yarn, llama3); beta_slow
// <= 0 or beta_fast <= beta_slow; attention_factor not finite > 0;
// low_freq_factor <= 0 or high_freq_factor <= low_freq_factor.
std::optional<RopeProblem> FindRopeProblem(const RopeOptions& o);

// inv_i for i < r/2 (formulas above) for a call whose padded length reaches
// position seq_end - 1 (only dynamic uses it: L = max(seq_end, L0)). Computed
// in long double, rounded once. The caller has checked the options.
std::vector<double> RopeInverseFrequencies(const RopeOptions& o, int64_t seq_end);
// The same before that rounding: the frequencies the rows follow.
std::vector<long double> RopeInverseFrequenciesLong(const RopeOptions& o, int64_t seq_end);

// The factor on cos and sin: yarn's attention_factor, 1 for every other type.
double RopeAttentionFactor(const RopeOptions& o);

class Rope : public QkRotation {
 public:
  // Throws Error "<key>: <what>" for the problems of FindRopeProblem, or for a
  // table too large to allocate.
  explicit Rope(const RopeOptions& options);

  // qkv: [batch·seq, layout.row()], rows q | k | v (qk_rotation.h); token j
  // at position offset + j. Rotates q and k in place, rows in parallel
  // (RotationRows::ForEachTask): a task reads its cos/sin rows from the cached
  // table where it has them and makes the others a few blocks at a time, used
  // while they sit in L1. Throws Error if layout.d_head is not d_head, or a
  // position is past kMaxPosition (or past max_len in mode cached).
  void Apply(float* qkv, int64_t batch, int64_t seq, const QkvLayout& layout) const override {
    ApplyAt(qkv, batch, seq, options_.offset, layout);
  }
  // The same for rows [3·d_model] of n_heads heads in each of q, k and v;
  // Error unless n_heads divides d_model into heads of d_head.
  void Apply(float* qkv, int64_t batch, int64_t seq, int64_t d_model, int64_t n_heads) const {
    ApplyAt(qkv, batch, seq, options_.offset, d_model, n_heads);
  }

  // The same with token j of every sequence at position first_pos + j: for a
  // long sequence rotated in pieces.
  void ApplyAt(float* qkv, int64_t batch, int64_t seq, int64_t first_pos,
               const QkvLayout& layout) const;
  void ApplyAt(float* qkv, int64_t batch, int64_t seq, int64_t first_pos, int64_t d_model,
               int64_t n_heads) const;

  // out: [n, r]: for p = first_pos + j, af·cos(p·inv_0 .. p·inv_{r/2-1}) then
  // af·sin(...), af = attention factor; inv for a call ending at first_pos + n
  // (dynamic). Throws Error like Apply.
  void FillCosSin(int64_t first_pos, int64_t n, float* out) const;

  // out: [n, r]: the rotation applied to a vector whose pairs are all (1, 0),
  // in the layout's order: af·cos θ_i at the pair's first slot, af·sin θ_i at
  // its second. The "RoPE table" of phasor pe --kind rope.
  void FillTable(int64_t first_pos, int64_t n, float* out) const;

  // Throws Error unless positions [first_pos, first_pos + n) can be produced.
  void CheckRange(int64_t first_pos, int64_t n) const;

  const RopeOptions& options() const { return options_; }
  int64_t rotary_dim() const { return r_; }
  double attention_factor() const { return attention_factor_; }
  // inv_i for calls within L0 (every type; dynamic at L = L0), rounded to double
  // (angles kLibrary: the float32 values). [r/2]
  const std::vector<double>& inv_freq() const { return rows_.freq(); }

 private:
  // The rows for a call ending at seq_end: rows_, or (dynamic, past L0) an
  // engine built for this L in thread-local storage.
  const RotationRows& RowsFor(int64_t seq_end) const;

  RopeOptions options_;
  int64_t r_ = 0;
  double attention_factor_ = 1.0;
  RotationRows rows_;  // at L0; with the cached table (modes cached, auto)
  uint64_t id_ = 0;    // tells this object's thread-local tables from others'
};

}  // namespace phasor

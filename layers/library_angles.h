// RoPE's angles as the models' own libraries compute them (RopeAngles::kLibrary,
// layers/rope.h): in float32, for a user who needs their numbers at long range.
//
// The Hugging Face modeling files (and nomic's and GTE's remote code) make
//   inv_freq = 1.0 / (base ** (arange(0, r, 2).float() / r))    a float32 tensor
// and each angle as the float32 product fl32(fl32(p)·inv_freq_i), then cos and
// sin in float32, times the attention factor in float32. Each step here is the
// float32 operation of that code: the exponent fl32(2i / r), the base rounded to
// float32, the power correctly rounded to float32 (from long double; glibc's
// powf, which NumPy uses, gives the same float nearly always; torch's vectorised
// pow is within 1 ulp of it), then the reciprocal and each scaling's arithmetic
// in float32, in the order of its Python source:
//   linear   inv_freq / factor                         (_compute_linear_scaling_rope_parameters)
//   llama3   _compute_llama3_parameters: wavelen = fl32(2π) / inv_freq, ...
//   yarn     _compute_yarn_parameters: 1 / pos_freqs, 1 / (factor·pos_freqs),
//            the ramp (arange(r/2) − low) / (high − low) clamped to [0, 1]
//   gte      GTE v1.5's NTKScalingRotaryEmbedding: the ladder of base·s, then
//            inv_freq / s^(2/r) (s^(2/r) in double, rounded to float32)
//   ntk      the ladder of base·s^(r/(r−2)), that base in double (bloc97's code)
//   dynamic  the ladder of base·(s·L/L0 − (s−1))^(r/(r−2)), that base in double
//            (HF _compute_dynamic_ntk_parameters given a Python int length;
//            newer versions form it in float32 from a tensor: within 1 ulp)
#pragma once

#include <cstdint>
#include <vector>

#include "layers/rope.h"

namespace phasor {

// inv_freq as a float32 library computes it, [r/2], for a call whose padded
// length reaches position seq_end − 1 (dynamic only). The caller has checked
// the options (FindRopeProblem).
std::vector<float> LibraryInverseFrequencies(const RopeOptions& o, int64_t seq_end);

// The float32 ladder of one base: fl32(1 / fl32(fl32(base)^fl32(2i / r))), [r/2].
std::vector<float> LibraryLadder(int64_t r, double base);

}  // namespace phasor

// The frequency ladder: one angular frequency per pair of dimensions, spaced
// geometrically from 1 down towards 1/base. Shared by sinusoidal PE and RoPE.
#pragma once

#include <cstdint>
#include <vector>

#include "layers/positional.h"

namespace phasor {

// freq[i] for i in [0, dim/2):
//   kDModel:       base^(-2i/dim)
//   kHalfMinusOne: base^(-i/(dim/2 - 1))
// Evaluated in long double and rounded once to double.
// Throws Error if dim is odd or < 2 (< 4 for kHalfMinusOne), or base is not a
// finite number > 1.
std::vector<double> FrequencyLadder(int64_t dim, double base, PeDenominator denominator);

// The same ladder in long double, before that rounding: for ladders changed
// further (RoPE's scalings, layers/rope.h). Checks nothing: the caller passes
// an even dim >= 2 (>= 4 for kHalfMinusOne) and a finite base > 0.
std::vector<long double> FrequencyLadderLong(int64_t dim, long double base,
                                             PeDenominator denominator);

}  // namespace phasor

// The frequency ladder: one angular frequency per pair of dimensions, spaced
// geometrically from 1 down towards 1/base. Shared by sinusoidal PE and RoPE.
// And the one place where an absolute angle pos·freq is formed.
#pragma once

#include <cstdint>
#include <vector>

#include "layers/positional.h"

namespace phasor {

// Throws Error if dim is odd or < 2 (< 4 for kHalfMinusOne), or base is not a
// finite number > 1: the options a ladder of FrequencyLadder accepts.
void CheckLadder(int64_t dim, double base, PeDenominator denominator);

// freq[i] for i in [0, dim/2):
//   kDModel:       base^(-2i/dim)
//   kHalfMinusOne: base^(-i/(dim/2 - 1))
// Evaluated in long double and rounded once to double. Throws as CheckLadder.
std::vector<double> FrequencyLadder(int64_t dim, double base, PeDenominator denominator);

// The same ladder in long double, before that rounding: the frequencies the
// rows follow (RotationOptions::freq), and for ladders changed further (RoPE's
// scalings, layers/rope.h). Checks nothing: the caller passes an even dim >= 2
// (>= 4 for kHalfMinusOne) and a finite base > 0.
std::vector<long double> FrequencyLadderLong(int64_t dim, long double base,
                                             PeDenominator denominator);

// An angle congruent to pos·freq modulo 2π, as a double whose sin and cos are
// those of pos·freq: the one way phasor forms an absolute angle. A double
// product would be off by up to 1e-4 rad at pos 2^40 (freq rounded to double:
// 1e-16 relative). Here the product is formed in long double (off by at most
// 2^-24 rad while pos·freq < 2^40); below 2^16 rad it is rounded to double
// (2^-38 rad at most) and left to sin and cos, which reduce exactly; above,
// it is reduced to [-π, π] by 2π in three parts (Cody-Waite), which adds
// under 1e-18 rad while pos·freq < 2^39·π, and beyond that by remainder with
// 2π rounded to long double. pos >= 0, freq finite >= 0. E.g.
// ReducedAngle(7, 1) = 7 and ReducedAngle(2^40 - 1, 1) = 2.5593426962577983.
double ReducedAngle(int64_t pos, long double freq);

// The angle as a float32 library forms it: fl32(fl32(pos)·freq), pos rounded
// to float32 as torch's position_ids.float(), the product in float32 (the
// libraries' angles, layers/library_angles.h). pos >= 0.
float LibraryAngle(int64_t pos, float freq);

}  // namespace phasor

// The weights of one nn.Linear, looked up by name and packed once at load for
// the products of engine/kernels/gemm.h.
#pragma once

#include <cstdint>
#include <string>

#include "engine/kernels/gemm.h"
#include "engine/weights.h"

namespace phasor {

// W [out, in] under `weight` and b [out] under `bias`, required in that order
// (a missing or misshapen tensor throws Error naming the weight first), packed.
kernels::PackedWeights RequireLinear(const Weights& weights, const std::string& weight,
                                     const std::string& bias, int64_t out, int64_t in);

}  // namespace phasor

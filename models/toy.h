// The built-in toy model: a small encoder whose weights are generated from a
// seed, so phasor runs with no files at all.
//
//   vocab 1000, d_model 256, 4 heads, 4 layers, d_ff 1024, relu, post-LN,
//   sinusoidal PE (base 10000, interleaved, denominator d_model), max_len 4096,
//   mode auto, pad_token_id 0.
//
// Weights follow PyTorch's default initialisation in distribution (uniform
// ±1/sqrt(fan_in) for linear layers, N(0, 1) rows for the embedding), with
// LayerNorm gains and biases slightly perturbed so that none is trivial.
#pragma once

#include <cstdint>

#include "engine/weights.h"
#include "models/config.h"

namespace phasor {

// The toy configuration; sizes may be changed before calling ToyWeights.
ModelConfig ToyConfig();

// Every tensor the config needs, deterministic for a given seed.
Weights ToyWeights(const ModelConfig& config, uint64_t seed = 1);

}  // namespace phasor

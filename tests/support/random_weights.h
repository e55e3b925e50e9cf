// Seeded random weights for the layer tests.
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "engine/weights.h"

namespace phasor::testing {

// "embedding.weight" [vocab, d] uniform in [-0.5, 0.5), the same for the same seed.
inline Weights RandomEmbedding(int64_t vocab, int64_t d, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  std::vector<float> w(static_cast<size_t>(vocab * d));  // w: [vocab, d]
  for (float& v : w) v = u(rng);
  Weights weights("test");
  weights.Add("embedding.weight", {vocab, d}, std::move(w));
  return weights;
}

}  // namespace phasor::testing

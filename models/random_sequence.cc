#include "models/random_sequence.h"

namespace phasor {

void FillRandomTokenTable(int64_t vocab, int64_t d_model, float* table) {
  const int64_t n = vocab * d_model;
  for (int64_t k = 0; k < n; ++k) {
    table[k] = static_cast<float>(RandomTokenId(k, 2001) - 1000) * 1e-4f;
  }
}

}  // namespace phasor

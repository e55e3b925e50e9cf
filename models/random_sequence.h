// The synthetic sequence of `phasor embed` and `phasor bench-pe`: token ids and
// a token table from fixed pseudo-random functions, so that any piece of a
// sequence can be made anywhere (another process, another machine) with the
// same bits as one pass over the whole.
#pragma once

#include <cstdint>

namespace phasor {

// The id of token j: splitmix64(j) mod vocab. vocab >= 1.
inline int32_t RandomTokenId(int64_t j, int64_t vocab) {
  uint64_t z = static_cast<uint64_t>(j) + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<int32_t>(z % static_cast<uint64_t>(vocab));
}

// table: [vocab, d_model]; value k (row-major) is (RandomTokenId(k, 2001) -
// 1000) · 1e-4, small values in [-0.1, 0.1].
void FillRandomTokenTable(int64_t vocab, int64_t d_model, float* table);

}  // namespace phasor

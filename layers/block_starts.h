// Block-start rows of a rotation: (sin, cos)(q·block·freq_i) per pair, for any
// block index q, in double.
//
// Rows inside a block are the block's start row turned by small angles (see
// sinusoidal.h); this class makes the start rows themselves. Writing
// q = (h·kGroup + l)·kSpan + t with l < kGroup and t < kSpan, the row is
//   exact(h·kGroup·kSpan·block) turned by l·kSpan·block, then by t·block,
// the two turns read from tables of exact cos and sin made once. So a row is
// a function of q alone (whichever thread or call asks, in whatever order). A
// thread keeps its last exact and anchor rows, so a thread moving forward calls
// sin and cos once per kGroup·kSpan blocks and otherwise spends one multiply of
// complex numbers per pair on a start (two on entering an anchor), wherever a
// caller begins. Each value is within a few double roundings of the exact row:
// the exact row's angle is formed in long double and reduced modulo 2π there
// (ReducedAngle, frequencies.h), so it stays exact at every position.
#pragma once

#include <cstdint>
#include <vector>

// Not tensor.h: the public API includes this header and must not need Eigen.
#include "engine/aligned_allocator.h"

namespace phasor {

class BlockStarts {
 public:
  static constexpr int64_t kSpan = 32;   // block starts turned from one anchor row
  static constexpr int64_t kGroup = 32;  // anchors turned from one exact row

  BlockStarts() = default;
  // freq: [half] the angular frequency of each pair, in long double (the
  // frequencies the rows follow); block: rows per block.
  BlockStarts(const std::vector<long double>& freq, int64_t block) { Init(freq, block); }

  // (Re)makes the tables for freq and block, reusing this object's memory
  // where the sizes do not grow. Rows asked for earlier are not reused. If an
  // allocation throws, the object is left empty (half() == 0).
  void Init(const std::vector<long double>& freq, int64_t block);

  int64_t half() const { return static_cast<int64_t>(freq_.size()); }

  // The start row of block q >= 0: [2·half] doubles, sin at 2i, cos at 2i+1.
  // The pointer is to this thread's scratch, valid until its next call of Row
  // on any BlockStarts.
  const double* Row(int64_t q) const;

 private:
  std::vector<long double> freq_;  // [half]
  int64_t block_ = 1;
  uint64_t id_ = 0;            // tells these tables' rows apart in a thread's cache (0: none)
  AlignedDoubles span_turn_;   // [kSpan, 2·half] (cos, sin)(t·block·freq_i) at 2i, 2i+1
  AlignedDoubles group_turn_;  // [kGroup, 2·half] (cos, sin)(l·kSpan·block·freq_i)
};

}  // namespace phasor

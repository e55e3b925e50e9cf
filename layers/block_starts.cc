#include "layers/block_starts.h"

#include <atomic>
#include <cassert>
#include <cmath>

#include "engine/kernels/rotate_rows.h"
#include "layers/frequencies.h"

namespace phasor {
namespace {

std::atomic<uint64_t> next_id{1};

// A thread's rows: the exact row of a group and the anchor row turned from
// it, kept while the same object asks for the same group and anchor.
struct StartCache {
  uint64_t owner = 0;
  int64_t group = -1, anchor = -1;
  AlignedDoubles exact, anchor_row, row;  // [2·half]
};

thread_local StartCache tls_cache;

// t = (cos, sin)(k·step·freq_i) at 2i, 2i+1 of row k, for k < rows.
void TurnTable(const std::vector<long double>& freq, int64_t rows, int64_t step,
               AlignedDoubles& t) {
  const int64_t half = static_cast<int64_t>(freq.size());
  t.resize(rows * 2 * half);
  for (int64_t k = 0; k < rows; ++k) {
    for (int64_t i = 0; i < half; ++i) {
      const double angle = ReducedAngle(k * step, freq[i]);
      t[k * 2 * half + 2 * i] = std::cos(angle);
      t[k * 2 * half + 2 * i + 1] = std::sin(angle);
    }
  }
}

}  // namespace

void BlockStarts::Init(const std::vector<long double>& freq, int64_t block) {
  assert(block >= 1);
  freq_.clear();  // empty until the tables are whole
  id_ = 0;
  TurnTable(freq, kSpan, block, span_turn_);
  TurnTable(freq, kGroup, kSpan * block, group_turn_);
  freq_.assign(freq.begin(), freq.end());
  block_ = block;
  id_ = next_id.fetch_add(1);
}

const double* BlockStarts::Row(int64_t q) const {
  assert(q >= 0);
  const int64_t n = 2 * half();
  StartCache& c = tls_cache;
  if (static_cast<int64_t>(c.row.size()) < n) {
    c.exact.resize(n);
    c.anchor_row.resize(n);
    c.row.resize(n);
    c.owner = 0;
  }
  const int64_t anchor = q / kSpan;
  const int64_t group = anchor / kGroup;
  if (c.owner != id_ || c.group != group) {
    // The angle reduced in long double, then sin and cos: exact up to their
    // rounding at every position.
    const int64_t pos = group * kGroup * kSpan * block_;
    for (int64_t i = 0; i < half(); ++i) {
      const double angle = ReducedAngle(pos, freq_[i]);
      c.exact[2 * i] = std::sin(angle);
      c.exact[2 * i + 1] = std::cos(angle);
    }
    c.owner = id_;
    c.group = group;
    c.anchor = -1;
  }
  if (c.anchor != anchor) {
    kernels::TurnPairs(c.exact.data(), group_turn_.data() + (anchor % kGroup) * n, n,
                       c.anchor_row.data());
    c.anchor = anchor;
  }
  kernels::TurnPairs(c.anchor_row.data(), span_turn_.data() + (q % kSpan) * n, n, c.row.data());
  return c.row.data();
}

}  // namespace phasor

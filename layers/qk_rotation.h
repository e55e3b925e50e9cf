// A position-dependent rotation of queries and keys inside attention (RoPE and
// its scalings implement it). MultiHeadSelfAttention applies it, when given
// one, to q and k of every head after the in-projection (bias included) and
// its q/k norms, before the scores' scaling; v is untouched.
#pragma once

#include <cstdint>

#include "layers/spans.h"

namespace phasor {

// The columns of a row of q | k | v: q_heads heads of d_head, then kv_heads
// of k and kv_heads of v (grouped-query attention when kv_heads < q_heads).
struct QkvLayout {
  int64_t q_heads = 0;
  int64_t kv_heads = 0;
  int64_t d_head = 0;
  int64_t row() const { return (q_heads + 2 * kv_heads) * d_head; }
  // n_heads heads of d_model / n_heads in each of q, k and v (d_model divisible).
  static QkvLayout Even(int64_t d_model, int64_t n_heads) {
    return {n_heads, n_heads, n_heads > 0 ? d_model / n_heads : 0};
  }
};

class QkRotation {
 public:
  virtual ~QkRotation() = default;

  // qkv: [batch·seq, layout.row()] row-major, each row q | k | v. Token j of
  // every sequence sits at position offset + j (the implementation knows its
  // offset). Rotates every head of q and of k in place; const and thread-safe:
  // it may run on many threads at once. Throws Error for a position it cannot
  // produce or a head width it was not made for.
  virtual void Apply(float* qkv, int64_t batch, int64_t seq, const QkvLayout& layout) const = 0;

  // The same for sequences at any rows of qkv (layers/spans.h): row
  // spans.start[b] + j (j < spans.length[b], padding rows included) at
  // position offset + j. The default applies Apply to each sequence in turn.
  virtual void ApplySpans(float* qkv, const Spans& spans, const QkvLayout& layout) const {
    for (int64_t b = 0; b < spans.batch; ++b) {
      Apply(qkv + spans.start[b] * layout.row(), 1, spans.length[b], layout);
    }
  }
};

}  // namespace phasor

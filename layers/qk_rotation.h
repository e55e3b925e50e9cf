// A position-dependent rotation of queries and keys inside attention (RoPE and
// its scalings implement it). MultiHeadSelfAttention applies it, when given
// one, to q and k of every head after the in-projection (bias included) and
// before the 1/sqrt(d_head) scaling; v is untouched.
#pragma once

#include <cstdint>

#include "layers/spans.h"

namespace phasor {

class QkRotation {
 public:
  virtual ~QkRotation() = default;

  // qkv: [batch·seq, 3·d_model] row-major, each row q | k | v, heads of d_head
  // columns side by side inside q and inside k. Token j of every sequence sits
  // at position offset + j (the implementation knows its offset). Rotates q and
  // k in place; const and thread-safe: it may run on many threads at once.
  // Throws Error for a position it cannot produce.
  virtual void Apply(float* qkv, int64_t batch, int64_t seq, int64_t d_model,
                     int64_t n_heads) const = 0;

  // The same for sequences at any rows of qkv (layers/spans.h): row
  // spans.start[b] + j (j < spans.length[b], padding rows included) at
  // position offset + j. The default applies Apply to each sequence in turn.
  virtual void ApplySpans(float* qkv, const Spans& spans, int64_t d_model, int64_t n_heads) const {
    for (int64_t b = 0; b < spans.batch; ++b) {
      Apply(qkv + spans.start[b] * 3 * d_model, 1, spans.length[b], d_model, n_heads);
    }
  }
};

}  // namespace phasor

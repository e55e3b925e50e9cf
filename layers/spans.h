// Where each sequence of a batch sits among the rows of a [rows, d_model]
// block: sequence b holds rows start[b] .. start[b] + length[b] - 1, its token
// j at position offset + j. Packed rows (every row a real token, sequences back
// to back: start[b + 1] = start[b] + length[b], as FlashAttention's cu_seqlens)
// and padded ones (start[b] = b·seq, the rows past a length being padding that
// no sequence attends to) are both spans.
#pragma once

#include <cstdint>

namespace phasor {

struct Spans {
  const int64_t* start = nullptr;   // [batch] first row of each sequence, nondecreasing
  const int64_t* length = nullptr;  // [batch] rows of each sequence, >= 0
  int64_t batch = 0;
  // [batch] or null: how many of a sequence's first rows are keys that
  // attention attends to (<= length), the rest being padding that is only
  // attended from (as PyTorch's key padding mask). Null: every row.
  const int64_t* keys = nullptr;

  int64_t Keys(int64_t b) const { return keys != nullptr ? keys[b] : length[b]; }
};

// A padded batch: sequence b in rows b·seq .. (b + 1)·seq - 1, of which the
// first lengths[b] are its tokens and the rest padding (lengths null: all seq).
struct Padded {
  int64_t batch = 0;
  int64_t seq = 0;
  const int64_t* lengths = nullptr;  // [batch] or null
};

// Throws Error (naming `where`) unless the spans lie inside [0, rows), in
// order and without overlap (start[b] >= start[b - 1] + length[b - 1]), with
// keys in [0, length].
void CheckSpans(const Spans& spans, int64_t rows, const char* where);

}  // namespace phasor

// The embedding layer: token rows, optionally scaled by sqrt(d_model), plus the
// positional encoding of each token's position. Its output is the encoder's
// input, the residual stream.
#pragma once

#include <cstdint>

#include "engine/kernels/rotate_rows.h"
#include "engine/weights.h"
#include "layers/sinusoidal.h"
#include "layers/spans.h"

namespace phasor {

struct EmbeddingOptions {
  int64_t vocab_size = 0;
  int64_t d_model = 0;
  bool scale_embedding = false;  // multiply token rows by sqrt(d_model)
  int64_t offset = 0;            // position of the first token of every sequence
};

class Embedding {
 public:
  // Requires "embedding.weight" [vocab_size, d_model]. pe (may be null: no PE)
  // and learned (may be null; [max_len, d_model] rows added by position) must
  // outlive this object; at most one of them is set.
  Embedding(const Weights& weights, const EmbeddingOptions& options, const SinusoidalEncoding* pe,
            const float* learned = nullptr, int64_t learned_rows = 0);

  // ids: [batch, seq] row-major; out: [batch * seq, d_model].
  // Token j of every sequence sits at position offset + j.
  // Throws Error naming the id, sequence and position for an id outside
  // [0, vocab_size), or for a position the PE cannot produce. Zero tokens: no-op.
  void Forward(const int32_t* ids, int64_t batch, int64_t seq, float* out) const;

  // A piece of one long sequence: tokens first_index .. first_index + n - 1,
  // at positions offset + first_index + j. ids: [n]; out: [n, d_model]. Calls
  // over consecutive pieces give the same bits as one call over the whole.
  void ForwardRange(const int32_t* ids, int64_t n, int64_t first_index, float* out) const;

  // Sequences at any rows (layers/spans.h), e.g. packed back to back: ids:
  // [rows], out: [rows, d_model]; token j of sequence b (row start[b] + j) at
  // position offset + j. Rows outside every span are neither read nor
  // written. Throws as Forward, naming sequence b and its position.
  void ForwardSpans(const int32_t* ids, int64_t rows, const Spans& spans, float* out) const;
  void CheckSpans(const int32_t* ids, int64_t rows, const Spans& spans) const;

  // Throws as Forward would, without computing anything. first_index as in
  // ForwardRange.
  void Check(const int32_t* ids, int64_t batch, int64_t seq, int64_t first_index = 0) const;

  const EmbeddingOptions& options() const { return options_; }

 private:
  // batch sequences of seq tokens each, at positions first_pos.., in parallel.
  // ids: [batch, seq]; out: [batch * seq, d_model].
  void EmbedSequences(const int32_t* ids, int64_t batch, int64_t seq, int64_t first_pos,
                      float* out) const;
  // rows tokens at positions first_pos.., on the calling thread. y: [rows, d_model].
  // stores: kernels::StoresFor the whole output of the call.
  void EmbedRows(const int32_t* ids, int64_t rows, int64_t first_pos, float* y,
                 kernels::Stores stores) const;

  EmbeddingOptions options_;
  const float* weight_;  // [vocab_size, d_model]
  const SinusoidalEncoding* pe_;
  const float* learned_;  // [learned_rows, d_model]
  int64_t learned_rows_;
  float scale_;
};

}  // namespace phasor

#include "layers/embedding.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/error.h"
#include "engine/id_range.h"
#include "engine/kernels/rotate_rows.h"
#include "engine/parallel.h"

namespace phasor {

Embedding::Embedding(const Weights& weights, const EmbeddingOptions& options,
                     const SinusoidalEncoding* pe, const float* learned, int64_t learned_rows)
    : options_(options),
      weight_(weights.Require("embedding.weight", {options.vocab_size, options.d_model})),
      pe_(pe),
      learned_(learned),
      learned_rows_(learned_rows),
      scale_(options.scale_embedding
                 ? static_cast<float>(std::sqrt(static_cast<double>(options.d_model)))
                 : 1.0f) {
  if (pe && learned) throw Error("an embedding takes sinusoidal or learned PE, not both");
  if (pe && pe->d_model() != options.d_model) {
    throw Error("PE d_model " + std::to_string(pe->d_model()) + " differs from the embedding's " +
                std::to_string(options.d_model));
  }
  if (options.offset < 0) {
    throw Error("positional offset must be >= 0, got " + std::to_string(options.offset));
  }
}

void Embedding::Check(const int32_t* ids, int64_t batch, int64_t seq, int64_t first_index) const {
  if (batch < 0 || seq < 0 || first_index < 0) {
    throw Error("negative batch, sequence length or first index");
  }
  for (int64_t b = 0; b < batch; ++b) {
    if (const int64_t j = FindOutside(ids + b * seq, seq, options_.vocab_size); j >= 0) {
      throw Error(OutsideRange(
          ids[b * seq + j], options_.vocab_size,
          " at sequence " + std::to_string(b) + ", position " + std::to_string(first_index + j)));
    }
  }
  if (seq == 0 || batch == 0) return;
  const int64_t first_pos = options_.offset + first_index;
  if (pe_) pe_->CheckRange(first_pos, seq);
  if (learned_ && first_pos + seq > learned_rows_) {
    throw Error("position " + std::to_string(std::max(first_pos, learned_rows_)) +
                " is past the learned positional table (max_len " + std::to_string(learned_rows_) +
                ")");
  }
}

void Embedding::Forward(const int32_t* ids, int64_t batch, int64_t seq, float* out) const {
  Check(ids, batch, seq);
  EmbedSequences(ids, batch, seq, options_.offset, out);
}

void Embedding::ForwardRange(const int32_t* ids, int64_t n, int64_t first_index, float* out) const {
  Check(ids, 1, n, first_index);
  EmbedSequences(ids, 1, n, options_.offset + first_index, out);
}

void Embedding::CheckSpans(const int32_t* ids, int64_t rows, const Spans& spans) const {
  phasor::CheckSpans(spans, rows, "embedding");
  int64_t longest = 0;
  for (int64_t b = 0; b < spans.batch; ++b) {
    const int32_t* seq_ids = ids + spans.start[b];
    if (const int64_t j = FindOutside(seq_ids, spans.length[b], options_.vocab_size); j >= 0) {
      throw Error(
          OutsideRange(seq_ids[j], options_.vocab_size,
                       " at sequence " + std::to_string(b) + ", position " + std::to_string(j)));
    }
    longest = std::max(longest, spans.length[b]);
  }
  // The positions of the longest sequence, as Check does for a padded batch.
  if (longest == 0) return;
  if (pe_) pe_->CheckRange(options_.offset, longest);
  if (learned_ && options_.offset + longest > learned_rows_) {
    throw Error("position " + std::to_string(std::max(options_.offset, learned_rows_)) +
                " is past the learned positional table (max_len " + std::to_string(learned_rows_) +
                ")");
  }
}

void Embedding::ForwardSpans(const int32_t* ids, int64_t rows, const Spans& spans,
                             float* out) const {
  CheckSpans(ids, rows, spans);
  if (rows == 0 || spans.batch == 0) return;
  const int64_t d = options_.d_model;
  const kernels::Stores stores = kernels::StoresFor(rows * d * static_cast<int64_t>(sizeof(float)));
  // Tasks of consecutive rows, each embedding the pieces of the sequences it
  // covers: no task per sequence, however short the sequences.
  const int64_t threads = std::max(NumThreads(), 1);
  const int64_t chunk =
      std::max<int64_t>(1, std::min(RotationRows::TaskRows(d), (rows + threads - 1) / threads));
  const int64_t* start = spans.start;
  const int64_t* length = spans.length;
  ParallelTasks((rows + chunk - 1) / chunk, 0, [&](int64_t t, int /*slot*/) {
    const int64_t r0 = t * chunk, r1 = std::min(rows, r0 + chunk);
    int64_t b = std::upper_bound(start, start + spans.batch, r0) - start - 1;
    for (b = std::max<int64_t>(b, 0); b < spans.batch && start[b] < r1; ++b) {
      const int64_t p0 = std::max(r0, start[b]), p1 = std::min(r1, start[b] + length[b]);
      if (p0 >= p1) continue;
      EmbedRows(ids + p0, p1 - p0, options_.offset + (p0 - start[b]), out + p0 * d, stores);
    }
  });
}

void Embedding::EmbedSequences(const int32_t* ids, int64_t batch, int64_t seq, int64_t first_pos,
                               float* out) const {
  if (batch == 0 || seq == 0) return;
  const int64_t d = options_.d_model;
  const kernels::Stores stores =
      kernels::StoresFor(batch * seq * d * static_cast<int64_t>(sizeof(float)));
  // The positional layers' own split of rows into tasks.
  RotationRows::ForEachTask(batch, first_pos, seq, d, [&](int64_t b, int64_t p0, int64_t p1) {
    const int64_t j0 = p0 - first_pos;
    EmbedRows(ids + b * seq + j0, p1 - p0, p0, out + (b * seq + j0) * d, stores);
  });
}

void Embedding::EmbedRows(const int32_t* ids, int64_t rows, int64_t first_pos, float* y,
                          kernels::Stores stores) const {
  const int64_t d = options_.d_model;
  if (pe_) {
    const RowSource src{weight_, ids, scale_};
    pe_->FillSerial(first_pos, rows, &src, y, stores);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = weight_ + static_cast<int64_t>(ids[r]) * d;
    const kernels::Ahead ahead = kernels::AheadRows(weight_, ids, r, rows, d);
    if (learned_) {
      kernels::ScaleAddRow(x, scale_, learned_ + (first_pos + r) * d, d, y + r * d,
                           {stores, ahead});
    } else {
      kernels::ScaleRow(x, scale_, d, y + r * d, {stores, ahead});
    }
  }
  if (stores == kernels::Stores::kStreaming) kernels::StreamFence();
}

}  // namespace phasor

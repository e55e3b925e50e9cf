#include "layers/embedding.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/error.h"
#include "engine/kernels/rotate_rows.h"
#include "engine/parallel.h"

namespace phasor {
namespace {

// Rows one task embeds: a multiple of the rotation block, large enough to
// amortise the block-start setup, small enough to balance two threads.
constexpr int64_t kRowsPerTask = 256;

}  // namespace

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
    for (int64_t j = 0; j < seq; ++j) {
      const int32_t id = ids[b * seq + j];
      if (id < 0 || id >= options_.vocab_size) {
        throw Error("token id " + std::to_string(id) + " at sequence " + std::to_string(b) +
                    ", position " + std::to_string(first_index + j) +
                    " is outside the vocabulary [0, " + std::to_string(options_.vocab_size) + ")");
      }
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
  if (batch == 0 || seq == 0) return;
  const int64_t tasks_per_seq = (seq + kRowsPerTask - 1) / kRowsPerTask;
  ParallelFor(batch * tasks_per_seq, 1, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t b = t / tasks_per_seq;
      const int64_t j0 = (t % tasks_per_seq) * kRowsPerTask;
      const int64_t rows = std::min(kRowsPerTask, seq - j0);
      EmbedRows(ids + b * seq + j0, rows, options_.offset + j0,
                out + (b * seq + j0) * options_.d_model);
    }
  });
}

void Embedding::ForwardRange(const int32_t* ids, int64_t n, int64_t first_index, float* out) const {
  Check(ids, 1, n, first_index);
  if (n == 0) return;
  const int64_t tasks = (n + kRowsPerTask - 1) / kRowsPerTask;
  ParallelFor(tasks, 1, [&](int64_t begin, int64_t end) {
    const int64_t j0 = begin * kRowsPerTask;
    const int64_t j1 = std::min(end * kRowsPerTask, n);
    EmbedRows(ids + j0, j1 - j0, options_.offset + first_index + j0, out + j0 * options_.d_model);
  });
}

void Embedding::EmbedRows(const int32_t* ids, int64_t rows, int64_t first_pos, float* y) const {
  const int64_t d = options_.d_model;
  if (pe_) {
    const RowSource src{weight_, ids, scale_};
    pe_->FillSerial(first_pos, rows, &src, y);
  } else if (learned_) {
    for (int64_t r = 0; r < rows; ++r) {
      if (r + kernels::kPrefetchRows < rows) {
        kernels::PrefetchRow(weight_ + static_cast<int64_t>(ids[r + kernels::kPrefetchRows]) * d,
                             d);
      }
      kernels::ScaleAddRow(weight_ + static_cast<int64_t>(ids[r]) * d, scale_,
                           learned_ + (first_pos + r) * d, d, y + r * d);
    }
  } else {
    for (int64_t r = 0; r < rows; ++r) {
      if (r + kernels::kPrefetchRows < rows) {
        kernels::PrefetchRow(weight_ + static_cast<int64_t>(ids[r + kernels::kPrefetchRows]) * d,
                             d);
      }
      kernels::ScaleRow(weight_ + static_cast<int64_t>(ids[r]) * d, scale_, d, y + r * d);
    }
  }
}

}  // namespace phasor

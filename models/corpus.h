// A corpus: any number of sequences of any lengths, encoded in batches chosen
// under a budget of real tokens, so that memory is bounded by the budget and
// not by the corpus or by batch × longest sequence.
//
// Sequences are taken in input order and cut into batches of at most
// batch_tokens real tokens; each batch runs packed (Encoder::ForwardPacked), so
// a ragged corpus costs its real tokens whatever the mix of lengths in a batch
// (no grouping by length is needed: no row is padding), and a sequence's rows
// are the same bits whatever batch it lands in. Results reach the caller batch
// by batch, each sequence named by its input index.
//
//   CorpusEncoder corpus(encoder, options);
//   corpus.Run({ids, types, Spans{start, length, n}}, ws, [&](const CorpusBatch& b) { ... });
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/aligned_allocator.h"
#include "engine/parallel.h"
#include "layers/spans.h"
#include "models/encoder.h"
#include "models/pooling.h"

namespace phasor {

// Real tokens a batch holds at most unless told otherwise. Measured on a
// corpus of 2,000 lines (bench/corpus.sh): the d512/8h/6L model runs fastest at
// 2K (1.15x 8K, whose activations no longer stay in cache; 1K loses 0.8x), the
// d256 toy model level from 2K up; a d512 workspace of 2K tokens is about 40 MB.
constexpr int64_t kDefaultBatchTokens = 2048;

struct CorpusOptions {
  // Real tokens per batch at most; 0: kDefaultBatchTokens, raised to the
  // longest sequence if that is longer. An explicit budget below the longest
  // sequence is an error.
  int64_t batch_tokens = 0;
  // kPooler, kLogits: one row a sequence, the model's head on its first final
  // row or their mean (ModelConfig::head_pooling, models/heads.h); pool must be
  // kNone.
  EncoderStage stage = EncoderStage::kFinal;
  Pooling pool = Pooling::kNone;  // kNone: every row; else one row a sequence
  bool normalize = false;         // with pool: unit L2 norm
  // With pool: the model's sentence-transformers Dense modules
  // (Encoder::sentence_dense) between the pooling and the normalization.
  bool sentence_dense = false;
  // Asked on the calling thread after every layer of every batch; once it
  // returns true, Run stops there and throws Cancelled. Null: never.
  std::function<bool()> cancelled;
};

// The result of one batch, valid during the callback only.
struct CorpusBatch {
  int64_t size = 0;                // sequences in this batch
  const int64_t* index = nullptr;  // [size] their input indices
  // Without pooling: [offsets[size], d_model] packed rows, sequence i of the
  // batch in rows offsets[i] .. offsets[i + 1]; with pooling or a head:
  // [size, width].
  const float* rows = nullptr;
  int64_t width = 0;                 // values a row: d_model, or a head's or Dense module's output
  const int64_t* offsets = nullptr;  // [size + 1]
  int64_t tokens = 0;                // real tokens in the batch
};

// What Run encodes: sequence i is ids[sequences.start[i] ..
// sequences.start[i] + sequences.length[i]) (its real tokens,
// ResolveRealTokens; ids past them are ignored), sequences.batch of them
// (sequences.keys unused); types, if set, holds each id's token type at the
// same index (null: every token of type 0).
struct CorpusInput {
  const int32_t* ids = nullptr;
  const int32_t* types = nullptr;
  Spans sequences;
};

// The buffers of Run, grown to the largest budget they served and reused:
// once warm, a run allocates nothing. One per concurrent caller.
struct CorpusWorkspace {
  int64_t budget = 0;
  EncoderWorkspace encoder;
  std::vector<int32_t> ids;      // [budget] a batch's ids, packed
  std::vector<int32_t> types;    // [budget] their token types, when given
  std::vector<int64_t> index;    // [budget] its sequences' input indices
  std::vector<int64_t> offsets;  // [budget + 1]
  AlignedFloats rows;            // [budget, d_model]
  AlignedFloats pooled;          // [budget, d_model], with pooling only
  AlignedFloats head;            // [budget, widest product], with a head or Dense only
  AlignedFloats head_scratch;    // [budget, widest product], with a head or Dense only
};

class CorpusEncoder {
 public:
  // The budget is settled by Run (it depends on the longest sequence).
  // Throws UsageError for a head stage with pooling or sentence_dense without
  // it; Error for a stage whose head the model lacks (models/heads.h) or
  // sentence_dense on a model without Dense modules.
  CorpusEncoder(const Encoder& encoder, const CorpusOptions& options);

  // The values of each output row (CorpusBatch::width).
  int64_t width() const { return width_; }

  // The budget Run uses for sequences of `total` real tokens whose longest has
  // `longest`: the explicit one, or kDefaultBatchTokens (no more than total,
  // no less than longest). UsageError for an explicit budget below longest or
  // outside [1, 2^26].
  int64_t BudgetFor(int64_t longest, int64_t total) const;

  // Bytes Run holds for a budget: the encoder's workspace and the batch's ids
  // and rows.
  uint64_t BytesFor(int64_t budget) const;

  // Encodes in's sequences. Calls sink once per batch, in the order run, and
  // progress(sequences, tokens) done so far after each. Checks every id, token
  // type and position first (Error naming sequence i), and the memory for the
  // budget (engine/memory_limit.h), before anything is computed.
  // ws: the buffers, grown here if smaller than the budget.
  void Run(
      const CorpusInput& in, CorpusWorkspace& ws, FunctionRef<void(const CorpusBatch&)> sink,
      FunctionRef<void(int64_t, int64_t)> progress = [](int64_t, int64_t) {}) const;

 private:
  // Sizes ws's buffers for budget tokens (a no-op once they fit).
  void Reserve(int64_t budget, bool types, CorpusWorkspace& ws) const;
  // A batch's rows (ws.rows, offsets: [k + 1]) pooled and through the head or
  // the Dense modules as the options say; the output rows.
  const float* Finish(const int64_t* offsets, int64_t k, CorpusWorkspace& ws) const;

  const Encoder& encoder_;
  CorpusOptions options_;
  const DenseHead* head_ = nullptr;  // the head or the Dense modules the options apply
  int64_t head_products_ = 0;        // of head_, run on each pooled row
  int64_t width_ = 0;
};

}  // namespace phasor

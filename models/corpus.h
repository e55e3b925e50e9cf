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
  EncoderStage stage = EncoderStage::kFinal;
  Pooling pool = Pooling::kNone;  // kNone: every row; else one row a sequence
  bool normalize = false;         // with pool: unit L2 norm
  // Asked on the calling thread after every layer of every batch; once it
  // returns true, Run stops there and throws Cancelled. Null: never.
  std::function<bool()> cancelled;
};

// The result of one batch, valid during the callback only.
struct CorpusBatch {
  int64_t size = 0;                // sequences in this batch
  const int64_t* index = nullptr;  // [size] their input indices
  // Without pooling: [offsets[size], d_model] packed rows, sequence i of the
  // batch in rows offsets[i] .. offsets[i + 1]; with pooling: [size, d_model].
  const float* rows = nullptr;
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
};

class CorpusEncoder {
 public:
  // The budget is settled by Run (it depends on the longest sequence).
  CorpusEncoder(const Encoder& encoder, const CorpusOptions& options);

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
  const Encoder& encoder_;
  CorpusOptions options_;
};

}  // namespace phasor

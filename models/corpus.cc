#include "models/corpus.h"

#include <algorithm>
#include <string>

#include "engine/error.h"
#include "engine/id_range.h"
#include "engine/memory_limit.h"
#include "engine/size_limits.h"
#include "models/heads.h"

namespace phasor {

CorpusEncoder::CorpusEncoder(const Encoder& encoder, const CorpusOptions& options)
    : encoder_(encoder), options_(options) {
  const ModelConfig& c = encoder.config();
  const bool pool = options.pool != Pooling::kNone;
  head_products_ = HeadProducts(c, options.stage, encoder.weights().source());
  if (head_products_ > 0) {
    if (pool) throw UsageError("a head's output (pooler, logits) and pooling do not go together");
    head_ = encoder.head();
  } else if (options.sentence_dense) {
    if (!pool) throw UsageError("the Dense modules of a sentence-transformers folder need pooling");
    head_ = encoder.sentence_dense();
    if (head_ == nullptr)
      throw Error(encoder.weights().source() + ": the model has no Dense module");
    head_products_ = head_->size();
  }
  width_ = OutputWidth(c, options.stage, options.sentence_dense && pool);
}

int64_t CorpusEncoder::BudgetFor(int64_t longest, int64_t total) const {
  const int64_t budget = options_.batch_tokens;
  if (budget < 0 || budget > kMaxBatchTokens) {
    throw UsageError("the token budget of a batch must be in [1, 2^26], got " +
                     std::to_string(budget));
  }
  if (budget == 0) return std::max(std::min(kDefaultBatchTokens, total), longest);
  if (budget < longest) {
    throw UsageError("the token budget of a batch (" + std::to_string(budget) +
                     ") is smaller than the longest sequence (" + std::to_string(longest) +
                     " tokens); raise it to at least that");
  }
  return budget;
}

uint64_t CorpusEncoder::BytesFor(int64_t budget) const {
  const auto tokens = static_cast<uint64_t>(std::max<int64_t>(budget, 0));
  const uint64_t d = static_cast<uint64_t>(encoder_.config().d_model);
  // The workspace, the batch's ids, token types and offsets, its rows and, with pooling or
  // a head, its pooled rows and the head's two buffers.
  const bool pooled = options_.pool != Pooling::kNone || head_ != nullptr;
  const uint64_t head = head_ ? 2 * static_cast<uint64_t>(head_->max_width()) : 0;
  const uint64_t rows = SaturatingMul(tokens, (d * (pooled ? 2 : 1) + head) * sizeof(float));
  const uint64_t ids = SaturatingMul(tokens, 2 * sizeof(int32_t) + 2 * sizeof(int64_t));
  const uint64_t ws = encoder_.WorkspaceBytes(budget);
  if (ws > UINT64_MAX - rows - ids) return UINT64_MAX;
  return ws + rows + ids;
}

void CorpusEncoder::Reserve(int64_t budget, bool types, CorpusWorkspace& ws) const {
  const int64_t d = encoder_.config().d_model;
  const bool pool = options_.pool != Pooling::kNone || head_ != nullptr;
  const int64_t head = head_ ? head_->max_width() : 0;
  if (ws.budget < budget || (pool && ws.pooled.size() < ws.rows.size()) ||
      static_cast<int64_t>(ws.head.size()) < budget * head ||
      (types && static_cast<int64_t>(ws.types.size()) < budget)) {
    ws = CorpusWorkspace();  // the old buffers freed before the new ones are made
    CheckAllocation(BytesFor(budget), "batches of " + std::to_string(budget) +
                                          " tokens (the encoder's workspace and the batch's rows)");
    ws.encoder = encoder_.MakeWorkspace(budget);
    ws.ids.resize(static_cast<size_t>(budget));
    if (types) ws.types.resize(static_cast<size_t>(budget));
    ws.index.resize(static_cast<size_t>(budget));
    ws.offsets.resize(static_cast<size_t>(budget) + 1);
    ws.rows.resize(static_cast<size_t>(budget * d));
    if (pool) ws.pooled.resize(static_cast<size_t>(budget * d));
    ws.head.resize(static_cast<size_t>(budget * head));
    ws.head_scratch.resize(static_cast<size_t>(budget * head));
    ws.budget = budget;
  }
}

const float* CorpusEncoder::Finish(const int64_t* offsets, int64_t k, CorpusWorkspace& ws) const {
  const int64_t d = encoder_.config().d_model;
  if (options_.pool == Pooling::kNone && head_ == nullptr) return ws.rows.data();
  // A head reads each sequence's first row or the mean of its rows
  // (ModelConfig::head_pooling); Dense modules come before the norm.
  const Pooling head_pooling = encoder_.config().head_pooling;
  const PoolSpec spec{head_ && options_.pool == Pooling::kNone ? head_pooling : options_.pool,
                      options_.normalize && head_ == nullptr};
  PoolRows(ws.rows.data(), offsets, k, d, spec, ws.pooled.data());
  if (head_ == nullptr) return ws.pooled.data();
  head_->Forward(ws.pooled.data(), k, head_products_, ws.head.data(), ws.head_scratch.data());
  if (options_.normalize) NormalizeRows(ws.head.data(), k, width_);
  return ws.head.data();
}

void CorpusEncoder::Run(const CorpusInput& in, CorpusWorkspace& ws,
                        FunctionRef<void(const CorpusBatch&)> sink,
                        FunctionRef<void(int64_t, int64_t)> progress) const {
  const int32_t* ids = in.ids;
  const int32_t* types = in.types;
  const Spans& sequences = in.sequences;
  const int64_t* offsets = sequences.start;
  const int64_t* real = sequences.length;
  const int64_t n = sequences.batch;
  if (n <= 0) throw Error("the corpus holds no sequence: nothing to encode");
  const int64_t vocab = encoder_.config().vocab_size;
  int64_t longest = 0, longest_at = 0, total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (real[i] <= 0) throw Error("sequence " + std::to_string(i) + " is empty: nothing to encode");
    const int32_t* seq_ids = ids + offsets[i];
    if (const int64_t j = FindOutside(seq_ids, real[i], vocab); j >= 0) {
      throw Error(
          OutsideRange(seq_ids[j], vocab,
                       " at sequence " + std::to_string(i) + ", position " + std::to_string(j)));
    }
    total += real[i];
    if (real[i] > longest) {
      longest = real[i];
      longest_at = i;
    }
  }
  encoder_.CheckTokenTypes(types, sequences);
  const int64_t budget = BudgetFor(longest, total);
  // The positions of the longest sequence (the PE or RoPE table, 2^40).
  encoder_.CheckInput(ids + offsets[longest_at], 1, longest);
  Reserve(budget, types != nullptr, ws);
  int32_t* batch_ids = ws.ids.data();
  int32_t* batch_types = types ? ws.types.data() : nullptr;
  int64_t* index = ws.index.data();
  int64_t* batch_offsets = ws.offsets.data();

  // Null unless the caller may cancel: no call per layer otherwise.
  std::function<void(int64_t)> check;
  if (options_.cancelled) {
    check = [this](int64_t) {
      if (options_.cancelled()) throw Cancelled();
    };
  }
  int64_t done = 0, tokens_done = 0;
  for (int64_t i = 0; i < n;) {
    // The next sequences that fit the budget together.
    int64_t k = 0, tokens = 0;
    batch_offsets[0] = 0;
    while (i < n && tokens + real[i] <= budget) {
      std::copy(ids + offsets[i], ids + offsets[i] + real[i], batch_ids + tokens);
      if (types) std::copy(types + offsets[i], types + offsets[i] + real[i], batch_types + tokens);
      index[k] = i;
      tokens += real[i];
      batch_offsets[++k] = tokens;
      ++i;
    }
    encoder_.ForwardPacked({batch_ids, batch_offsets, k, batch_types}, options_.stage,
                           ws.rows.data(), ws.encoder, check);
    const CorpusBatch out{k, index, Finish(batch_offsets, k, ws), width_, batch_offsets, tokens};
    sink(out);
    done += k;
    tokens_done += tokens;
    progress(done, tokens_done);
  }
}

}  // namespace phasor

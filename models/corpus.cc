#include "models/corpus.h"

#include <algorithm>
#include <string>

#include "engine/error.h"
#include "engine/memory_limit.h"
#include "engine/size_limits.h"

namespace phasor {

CorpusEncoder::CorpusEncoder(const Encoder& encoder, const CorpusOptions& options)
    : encoder_(encoder), options_(options) {}

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
  // The workspace, the batch's ids, token types and offsets, its rows and, with
  // pooling, its pooled rows.
  const uint64_t rows =
      SaturatingMul(tokens, d * sizeof(float) * (options_.pool == Pooling::kNone ? 1 : 2));
  const uint64_t ids = SaturatingMul(tokens, 2 * sizeof(int32_t) + 2 * sizeof(int64_t));
  const uint64_t ws = encoder_.WorkspaceBytes(budget);
  if (ws > UINT64_MAX - rows - ids) return UINT64_MAX;
  return ws + rows + ids;
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
    for (int64_t j = 0; j < real[i]; ++j) {
      if (seq_ids[j] < 0 || seq_ids[j] >= vocab) {
        throw Error("token id " + std::to_string(seq_ids[j]) + " at sequence " + std::to_string(i) +
                    ", position " + std::to_string(j) + " is outside the vocabulary [0, " +
                    std::to_string(vocab) + ")");
      }
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
  const int64_t d = encoder_.config().d_model;
  const bool pool = options_.pool != Pooling::kNone;
  if (ws.budget < budget || (pool && ws.pooled.size() < ws.rows.size()) ||
      (types && ws.types.size() < ws.ids.size())) {
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
    ws.budget = budget;
  }
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
    CorpusBatch out{k, index, ws.rows.data(), batch_offsets, tokens};
    if (pool) {
      PoolRows(ws.rows.data(), batch_offsets, k, d, PoolSpec{options_.pool, options_.normalize},
               ws.pooled.data());
      out.rows = ws.pooled.data();
    }
    sink(out);
    done += k;
    tokens_done += tokens;
    progress(done, tokens_done);
  }
}

}  // namespace phasor

#include "commands/embed_job.h"

#include <algorithm>
#include <vector>

#include "commands/option_checks.h"
#include "commands/timing.h"
#include "engine/aligned_allocator.h"
#include "engine/memory_limit.h"
#include "engine/npy.h"
#include "engine/parallel.h"
#include "engine/weights.h"
#include "layers/embedding.h"
#include "layers/sinusoidal.h"
#include "models/random_sequence.h"

namespace phasor {
namespace {

// The sizes of the options, each on its own and together.
void CheckSizes(const EmbedRequest& r, int64_t chunk) {
  CheckRange("--seq-len", r.seq_len, 1, int64_t{1} << 40);
  CheckRange("--d-model", r.d_model, 2, 65536);
  if (r.d_model % 2) throw UsageError("--d-model must be even, got " + std::to_string(r.d_model));
  CheckVocab(r.vocab, r.d_model);
  CheckRange("--max-len", r.max_len, 1, int64_t{1} << 40);
  CheckRange("--threads", r.threads, 0, 1024);
  CheckRange("--repeat", r.repeat, 1, 1000000);
  CheckRange("--chunk", chunk, 1, int64_t{1} << 30);
  if (chunk * r.d_model > kGiB) throw UsageError("--chunk × --d-model is over 2^30 floats");
}

// The output: every row must fit in memory, in a file named .npy.
void CheckOutput(const EmbedRequest& r) {
  if (r.output.empty()) return;
  if (r.seq_len > (int64_t{1} << 28) / r.d_model) {
    throw UsageError("--output holds every row: --seq-len × --d-model must be at most 2^28, got " +
                     std::to_string(r.seq_len) + " × " + std::to_string(r.d_model));
  }
  OutputFormat("--output", r.output, {".npy"});
  CheckWritable(r.output);
}

// The token table [vocab, d_model]: small values from a fixed seed.
Weights TokenTable(int64_t vocab, int64_t d_model) {
  AlignedFloats table(static_cast<size_t>(vocab * d_model));
  FillRandomTokenTable(vocab, d_model, table.data());
  Weights w("embed");
  w.AddAligned("embedding.weight", {vocab, d_model}, std::move(table));
  return w;
}

}  // namespace

EmbedPlan CheckEmbedRequest(const EmbedRequest& r) {
  EmbedPlan p;
  p.chunk = r.chunk
                ? *r.chunk
                : std::max<int64_t>(16, (int64_t{8} << 20) / (4 * std::max<int64_t>(r.d_model, 1)));
  CheckSizes(r, p.chunk);
  p.mode = ParseOption("--pe-mode", r.pe_mode, ParsePeMode);
  // The cached table holds every position; auto's holds --max-len.
  p.table_rows = p.mode == PeMode::kCached ? r.seq_len : (p.mode == PeMode::kAuto ? r.max_len : 0);
  if (p.table_rows > kGiB / r.d_model) {
    throw UsageError(
        "a cached PE table holds at most 2^30 values (4 GiB); " + std::to_string(p.table_rows) +
        " rows x " + std::to_string(r.d_model) +
        (p.mode == PeMode::kCached ? " (--seq-len x --d-model)" : " (--max-len x --d-model)") +
        " is more: use --pe-mode on_the_fly" +
        (p.mode == PeMode::kCached ? " or auto" : ", or a smaller --max-len"));
  }
  CheckOutput(r);
  // The token table, the cached PE table, one chunk of output and the --output rows.
  const uint64_t d = static_cast<uint64_t>(r.d_model);
  const uint64_t output_rows = r.output.empty() ? 0 : static_cast<uint64_t>(r.seq_len);
  CheckAllocation((static_cast<uint64_t>(r.vocab) + static_cast<uint64_t>(p.table_rows) +
                   static_cast<uint64_t>(p.chunk) + output_rows) *
                      d * sizeof(float),
                  r.output.empty() ? "--vocab, the PE table and --chunk"
                                   : "--vocab, the PE table, --chunk and --output rows");
  return p;
}

EmbedResult RunEmbedJob(const EmbedRequest& r, const JobEvents& events) {
  EmbedResult res;
  res.plan = CheckEmbedRequest(r);
  const int64_t chunk = res.plan.chunk, d = r.d_model;
  SetNumThreads(static_cast<int>(r.threads));
  const Weights w = TokenTable(r.vocab, d);
  SinusoidalOptions po;
  po.d_model = d;
  po.mode = res.plan.mode;
  po.max_len = res.plan.table_rows;
  const double t0 = Now();
  const SinusoidalEncoding pe(po);
  // On the fly there is no table: nothing to time (the frequencies are all).
  res.table_seconds = res.plan.table_rows > 0 ? Now() - t0 : 0.0;
  const Embedding emb(w, {r.vocab, d, false, 0}, &pe);

  std::vector<int32_t> ids(static_cast<size_t>(chunk));  // [chunk]
  AlignedFloats out(static_cast<size_t>(chunk * d));     // [chunk, d_model]
  std::vector<float> rows;                               // [seq_len, d_model] with an output
  if (!r.output.empty()) rows.resize(static_cast<size_t>(r.seq_len * d));
  std::vector<double> seconds;
  for (int64_t rep = 0; rep < r.repeat; ++rep) {
    double pass = 0;
    for (int64_t j0 = 0; j0 < r.seq_len; j0 += chunk) {
      const int64_t n = std::min(chunk, r.seq_len - j0);
      for (int64_t j = 0; j < n; ++j) ids[j] = RandomTokenId(j0 + j, r.vocab);
      const double c0 = Now();
      emb.ForwardRange(ids.data(), n, j0, out.data());
      pass += Now() - c0;
      if (rep == 0 && !rows.empty()) {
        std::copy(out.begin(), out.begin() + n * d, rows.begin() + j0 * d);
      }
      events.Progress(rep * r.seq_len + j0 + n);
    }
    seconds.push_back(pass);
  }
  if (!r.output.empty()) {
    WriteNpy(r.output, {r.seq_len, d}, rows.data());
    events.Wrote(r.output, "float32 [" + std::to_string(r.seq_len) + ", " + std::to_string(d) +
                               "], every row (token row + PE)");
  }
  const int64_t last = (r.seq_len - 1) % chunk;
  for (int64_t k = 0; k < d; ++k) res.last_row_sum += out[last * d + k];
  res.seconds = Median(seconds);
  res.tokens_per_s = static_cast<double>(r.seq_len) / res.seconds;
  res.gb_per_s = static_cast<double>(r.seq_len * d * 4) / res.seconds / 1e9;
  return res;
}

}  // namespace phasor

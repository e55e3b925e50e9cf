// `phasor embed` as a library call: embeds a long sequence of random tokens
// (fixed seed, models/random_sequence.h) with sinusoidal PE, chunk by chunk,
// timing the embedding passes; optionally writes every row.
//
//   EmbedRequest r;
//   r.seq_len = 1 << 20;
//   const EmbedResult res = RunEmbedJob(r, events);  // events.progress: tokens done
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "commands/job_events.h"
#include "layers/positional.h"

namespace phasor {

// What is asked, as the command line says it (each field is its option).
struct EmbedRequest {
  int64_t seq_len = 0;
  int64_t d_model = 512;
  int64_t vocab = 32000;
  std::string pe_mode = "on_the_fly";
  std::string output;            // .npy of every row, [seq_len, d_model]; "": none
  int64_t max_len = 4096;        // the table's rows in mode auto
  std::optional<int64_t> chunk;  // tokens per chunk; none: one chunk of output fills 8 MiB
  int64_t threads = 0;           // 0: OMP_NUM_THREADS if set, else all cores
  int64_t repeat = 1;
};

// The request, checked: what it settles.
struct EmbedPlan {
  PeMode mode = PeMode::kOnTheFly;
  int64_t chunk = 0;
  int64_t table_rows = 0;  // of the cached PE table: seq_len (cached), max_len (auto) or 0
};

// Checks every option, the output path and the memory the run needs
// (engine/memory_limit.h) before anything is allocated. Throws UsageError, or
// Error (a path that cannot be written, memory over the limit).
EmbedPlan CheckEmbedRequest(const EmbedRequest& r);

struct EmbedResult {
  EmbedPlan plan;
  double table_seconds = 0;  // building the PE table; 0 on the fly (there is none)
  double seconds = 0;        // median embedding pass over the whole sequence
  double tokens_per_s = 0;
  double gb_per_s = 0;      // bytes of output written per second
  double last_row_sum = 0;  // sum of the last row: a checksum
};

// Checks (CheckEmbedRequest), sets the thread count, embeds the sequence
// r.repeat times; events.progress counts tokens (seq_len × repeat in all),
// events.wrote names the output once written.
EmbedResult RunEmbedJob(const EmbedRequest& r, const JobEvents& events);

}  // namespace phasor

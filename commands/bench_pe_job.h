// `phasor bench-pe` as a library call: cached versus recomputed PE (alone and
// added to token rows) or RoPE (applied to q and k) throughput at several
// lengths, side by side with bounds measured in the same run.
//
//   BenchPeRequest r;
//   r.lengths = "4K, 64K";
//   for (const BenchPeRow& row : RunBenchPeJob(r)) ...
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "commands/job_events.h"

namespace phasor {

// How many times a cached table is built to time its build.
constexpr int kBenchTableBuilds = 5;

// What is asked, as the command line says it (each field is its option).
struct BenchPeRequest {
  std::string kind = "sinusoidal";  // or "rope"
  int64_t d_model = 512;
  int64_t heads = 8;  // rope: head dim = d_model / heads
  // The defaults take about 5 minutes on 2 cores, with a peak of about 4 GB
  // (README "phasor bench-pe").
  std::string lengths = "1K,16K,256K,1M,4M";
  int64_t threads = 0;  // 0: OMP_NUM_THREADS if set, else all cores
  int64_t vocab = 32000;
  double max_table_gib = 4.0;  // cached rows are skipped past this
  double min_seconds = 0.2;    // least time spent per measurement
  std::string png;             // a chart, the caller's to draw: checked here
};

struct BenchPeRow {
  std::string group;  // "pe", "embedding+pe" or "rope"
  std::string mode;   // stream_write, gather, read_write (the bounds); cached,
                      // on_the_fly, direct, table_build
  int64_t length = 0;
  double seconds = 0;  // median for the whole length
  double tokens_per_s = 0;
  double gb_per_s = 0;
  double of_bound = 0;  // fraction of the group's bound
  std::string note;     // why a row was skipped ("" if measured)
};

// Checks every option (and that png can be written); returns the lengths.
// Throws UsageError with the CLI's message, Error for a path.
std::vector<int64_t> CheckBenchPeRequest(const BenchPeRequest& r);

// Checks, sets the thread count, measures every length: the rows in order,
// each with its fraction of the bound measured for the same length.
// events.progress: the lengths done, after each ("length 16384").
std::vector<BenchPeRow> RunBenchPeJob(const BenchPeRequest& r, const JobEvents& events = {});

}  // namespace phasor

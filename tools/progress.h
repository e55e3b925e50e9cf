// A progress bar for long runs: drawn on a terminal only (never into a pipe,
// a file or --json output), once the work has taken more than a second, and
// wiped when the work is done so that the next line starts clean.
//
//   Progress progress(total_tokens, "tokens", !json);
//   for (...) progress.Update(done);
//   progress.Finish();  // before printing the summary
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace phasor::cli {

struct ProgressOptions {
  std::FILE* out = stderr;  // drawn only if this is a terminal
  double delay_seconds = 1.0;
  double redraw_seconds = 0.1;
};

class Progress {
 public:
  // total: units of work; unit: what one is ("tokens"); allowed: false turns
  // the bar off whatever out is.
  Progress(int64_t total, std::string unit, bool allowed, ProgressOptions options = {});
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Cheap; redraws at most every redraw_seconds. note, if any, is shown after
  // the rate (e.g. "1,204 lines").
  void Update(int64_t done, const std::string& note = "");
  void Finish();  // wipes the bar's line if one was drawn; idempotent

 private:
  int64_t total_;
  std::string unit_;
  ProgressOptions options_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace phasor::cli

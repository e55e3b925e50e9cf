// A progress bar on stderr for long runs: shown only when stderr is a terminal
// and the work has taken more than a second, never in --json output or a pipe.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace phasor::cli {

class Progress {
 public:
  // total: units of work; unit: what one is ("tokens").
  Progress(int64_t total, std::string unit, bool allowed);
  ~Progress();
  void Update(int64_t done);  // cheap; redraws at most ten times a second

 private:
  int64_t total_;
  std::string unit_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace phasor::cli

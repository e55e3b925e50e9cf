#include "tools/progress.h"

#include <unistd.h>

#include <cstdio>

namespace phasor::cli {

Progress::Progress(int64_t total, std::string unit, bool allowed)
    : total_(total),
      unit_(std::move(unit)),
      enabled_(allowed && isatty(STDERR_FILENO)),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Progress::~Progress() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
}

void Progress::Update(int64_t done) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < 1.0 || std::chrono::duration<double>(now - last_).count() < 0.1) return;
  last_ = now;
  drawn_ = true;
  const double frac = total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 1.0;
  const double rate = static_cast<double>(done) / elapsed;
  const double left = rate > 0 ? static_cast<double>(total_ - done) / rate : 0.0;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(frac * kWidth);
  char bar[kWidth + 1];
  for (int k = 0; k < kWidth; ++k) bar[k] = k < filled ? '#' : '.';
  bar[kWidth] = '\0';
  std::fprintf(stderr, "\r[%s] %5.1f%%  %.3g %s/s  %.0f s left\033[K", bar, 100.0 * frac, rate,
               unit_.c_str(), left);
  std::fflush(stderr);
}

}  // namespace phasor::cli

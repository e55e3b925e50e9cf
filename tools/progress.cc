#include "tools/progress.h"

#include <unistd.h>

#include "tools/sizes.h"

namespace phasor::cli {

Progress::Progress(int64_t total, std::string unit, bool allowed, ProgressOptions options)
    : total_(total),
      unit_(std::move(unit)),
      options_(options),
      enabled_(allowed && options.out != nullptr && isatty(fileno(options.out))),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Progress::~Progress() { Finish(); }

void Progress::Finish() {
  if (!drawn_) return;
  // Back to the start of the line and erase it: what follows starts clean.
  std::fprintf(options_.out, "\r\033[K");
  std::fflush(options_.out);
  drawn_ = false;
  enabled_ = false;
}

void Progress::Update(int64_t done, const std::string& note) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < options_.delay_seconds ||
      (drawn_ && std::chrono::duration<double>(now - last_).count() < options_.redraw_seconds)) {
    return;
  }
  last_ = now;
  drawn_ = true;
  const double frac = total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 1.0;
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0;
  const double left = rate > 0 ? static_cast<double>(total_ - done) / rate : 0.0;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(frac * kWidth);
  char bar[kWidth + 1];
  for (int k = 0; k < kWidth; ++k) bar[k] = k < filled ? '#' : '.';
  bar[kWidth] = '\0';
  std::fprintf(options_.out, "\r[%s] %5.1f%%  %s %s/s%s%s  %.0f s left\033[K", bar, 100.0 * frac,
               FormatSi(rate).c_str(), unit_.c_str(), note.empty() ? "" : "  ", note.c_str(), left);
  std::fflush(options_.out);
}

}  // namespace phasor::cli

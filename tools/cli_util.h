// Small helpers shared by the subcommands.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/error.h"

namespace phasor::cli {

inline double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double Median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Throws UsageError unless lo <= value <= hi.
inline void CheckRange(const std::string& flag, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi) {
    throw UsageError(flag + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "], got " + std::to_string(value));
  }
}

// A number as a user would type it back: 0.2, -1, nan.
inline std::string FormatNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

constexpr int64_t kGiB = int64_t{1} << 30;

inline bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The format of an output file, from its extension: one of allowed (e.g.
// {".npy", ".csv"}). Throws UsageError naming the option otherwise, so that no
// file is ever written in a format its name does not say.
inline std::string OutputFormat(const std::string& option, const std::string& path,
                                const std::vector<std::string>& allowed) {
  for (const std::string& ext : allowed) {
    if (EndsWith(path, ext)) return ext;
  }
  std::string list;
  for (size_t k = 0; k < allowed.size(); ++k) {
    list += (k == 0 ? "" : k + 1 == allowed.size() ? " or " : ", ") + allowed[k];
  }
  throw UsageError(option + " must end in " + list + ", got '" + path + "'");
}

// Checks, before any work, that a file can be written at path: its directory
// exists and is writable, and path is not a directory itself. Throws Error
// with the message the write itself would give ("cannot write PATH: No such
// file or directory", exit 1), so that a long run is never lost to a typo in
// its output path.
inline void CheckWritable(const std::string& path) {
  namespace fs = std::filesystem;
  const auto fail = [&](int err) {
    return Error("cannot write " + path + ": " + std::strerror(err));
  };
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw fail(EISDIR);
  const fs::path parent = fs::path(path).parent_path();
  const std::string dir = parent.empty() ? "." : parent.string();
  if (!fs::exists(dir, ec)) throw fail(ENOENT);
  if (!fs::is_directory(dir, ec)) throw fail(ENOTDIR);
  if (access(dir.c_str(), W_OK) != 0) throw fail(errno);
}

// The one line every command prints on stderr for each file it writes.
inline void ReportWrote(const std::string& path, const std::string& what) {
  std::fprintf(stderr, "phasor: wrote %s: %s\n", path.c_str(), what.c_str());
}

}  // namespace phasor::cli

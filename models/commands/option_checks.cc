#include "models/commands/option_checks.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace phasor {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

void CheckRange(const std::string& option, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi) {
    throw UsageError(option + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "], got " + std::to_string(value));
  }
}

std::string FormatNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string OutputFormat(const std::string& option, const std::string& path,
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

void CheckWritable(const std::string& path) {
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

}  // namespace phasor

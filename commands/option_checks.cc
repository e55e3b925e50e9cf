#include "commands/option_checks.h"

#include <sys/stat.h>
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

// Whether a and b are one file: by device and inode where both exist, else by
// their paths with links and ".." resolved as far as they exist.
bool SameFile(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  struct stat sa {
  }, sb{};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) {
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  }
  std::error_code ea, eb;
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ea), ea);
  const fs::path cb = fs::weakly_canonical(fs::absolute(b, eb), eb);
  return !ea && !eb && ca == cb;
}

}  // namespace

void CheckDistinctPaths(const std::vector<NamedPath>& outputs,
                        const std::vector<NamedPath>& inputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& out = outputs[i];
    if (out.path.empty()) continue;
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      if (!outputs[j].path.empty() && SameFile(out.path, outputs[j].path)) {
        throw UsageError(out.option + " and " + outputs[j].option + " name the same file (" +
                         out.path + ")");
      }
    }
    for (const NamedPath& in : inputs) {
      if (!in.path.empty() && SameFile(out.path, in.path)) {
        throw UsageError(out.option + " names the input of " + in.option + " (" + out.path + ")");
      }
    }
  }
}

void CheckRange(const std::string& option, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi) {
    throw UsageError(option + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "], got " + std::to_string(value));
  }
}

void CheckVocab(int64_t vocab, int64_t d_model) {
  CheckRange("--vocab", vocab, 1, (int64_t{1} << 31) - 1);
  if (d_model > 0 && vocab > kGiB / d_model) {
    throw UsageError("--vocab × --d-model is over 2^30 floats (a token table of 4 GiB): got " +
                     std::to_string(vocab) + " × " + std::to_string(d_model));
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

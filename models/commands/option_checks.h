// The checks every command makes on what it is asked, before it loads or
// computes anything: ranges, output formats and writable paths. Each throws
// UsageError (exit 2) or Error (exit 1) with the message the CLI prints,
// naming the option as the caller spells it ("--threads").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/error.h"

namespace phasor {

constexpr int64_t kGiB = int64_t{1} << 30;

// Throws UsageError unless lo <= value <= hi:
// "--threads must be in [0, 1024], got 2000".
void CheckRange(const std::string& option, int64_t value, int64_t lo, int64_t hi);

// A number as a user would type it back: 0.2, -1, nan.
std::string FormatNumber(double v);

// The format of an output file, from its extension: one of allowed (e.g.
// {".npy", ".csv"}). Throws UsageError naming the option otherwise, so that no
// file is ever written in a format its name does not say.
std::string OutputFormat(const std::string& option, const std::string& path,
                         const std::vector<std::string>& allowed);

// Checks, before any work, that a file can be written at path: its directory
// exists and is writable, and path is not a directory itself. Throws Error
// with the message the write itself would give ("cannot write PATH: No such
// file or directory", exit 1), so that a long run is never lost to a typo in
// its output path.
void CheckWritable(const std::string& path);

// parse(text), its Error turned into a UsageError prefixed with the option:
// "--pe-mode: expected cached, on_the_fly or auto, got 'x'".
template <typename Parse>
auto ParseOption(const std::string& option, const std::string& text, Parse parse) {
  try {
    return parse(text);
  } catch (const Error& e) {
    throw UsageError(option + ": " + e.what());
  }
}

}  // namespace phasor

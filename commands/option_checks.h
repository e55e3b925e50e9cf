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

// A token table's size, worded alike by every command that makes one:
// "--vocab must be in [1, 2147483647], got 0", "--vocab × --d-model is over
// 2^30 floats (a token table of 4 GiB): got 5000000 × 512". UsageError.
void CheckVocab(int64_t vocab, int64_t d_model);

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

// A file a run reads or writes, and the option that names it.
struct NamedPath {
  std::string option;  // "--output"
  std::string path;    // "" (not given): skipped
};

// Checks, before any work, that no two outputs name the same file and that no
// output names one of the inputs, after resolving symbolic links and "..";
// files that exist are compared by device and inode, so hard links count too.
// Throws UsageError naming both options and the path: "--output and --offsets
// name the same file (same.npy)"; "--output names the input of --tokens-file
// (rag.npy)".
void CheckDistinctPaths(const std::vector<NamedPath>& outputs,
                        const std::vector<NamedPath>& inputs = {});

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

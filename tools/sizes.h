// Sizes and lists of sizes as users type them, parsed one way by every
// subcommand, and counts printed one way. K, M, G mean 1024, 1024², 1024³
// everywhere phasor reads or prints a count: sizes typed, rates printed
// ("1.5K tokens/s" is 1536 a second) and the ticks of its pictures.
//
//   ParseSize("--seq-len", "1M")            -> 1048576  (K, M, G: 1024, 1024², 1024³)
//   ParseSizeList("--lengths", "4K, 64K")   -> {4096, 65536}
//   FormatSi(35875635)                      -> "34.2M"
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "models/commands/sizes.h"

namespace phasor::cli {

// ParseSize and ParseSizeList (models/commands/sizes.h), as the options read them.
using ::phasor::ParseSize;
using ::phasor::ParseSizeList;

// An option of type SIZE: the text is parsed by ParseSize into *target as the
// command line is read; the help shows *target's current value as the default.
CLI::Option* AddSizeOption(CLI::App* cmd, const std::string& name, int64_t* target,
                           const std::string& help);

// A count or rate with a binary prefix (K = 1024, as ParseSize) and three
// significant digits: 950 -> "950", 1004 -> "1004", 1536 -> "1.5K",
// 35875635 -> "34.2M".
std::string FormatSi(double value);

// A time as a person reads it: milliseconds below a second, seconds from
// there: 0.0123 -> "12.300 ms", 2.5 -> "2.500 s".
std::string FormatDuration(double seconds);

// "1 thread", "2 threads".
std::string Plural(int64_t n, const std::string& word);

}  // namespace phasor::cli

// Sizes and lists of sizes as users type them, parsed one way by every
// subcommand, and counts printed one way. Sizes typed read K, M, G as 1024,
// 1024², 1024³ (and so do the ticks of its pictures, which show sizes typed);
// rates and counts printed use SI prefixes (k = 1000: "6.85k tokens/s" is
// 6,850 a second); bytes printed take binary units, labelled (FormatBytes of
// engine/memory_limit.h: "34.2 MiB").
//
//   ParseSize("--seq-len", "1M")            -> 1048576  (K, M, G: 1024, 1024², 1024³)
//   ParseSizeList("--lengths", "4K, 64K")   -> {4096, 65536}
//   FormatSi(6850)                          -> "6.85k"
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "commands/sizes.h"

namespace phasor::cli {

// ParseSize and ParseSizeList (commands/sizes.h), as the options read them.
using ::phasor::ParseSize;
using ::phasor::ParseSizeList;

// An option of type SIZE: the text is parsed by ParseSize into *target as the
// command line is read; the help shows *target's current value as the default.
CLI::Option* AddSizeOption(CLI::App* cmd, const std::string& name, int64_t* target,
                           const std::string& help);

// A count or rate with an SI prefix (k = 1000, M = 10^6, ...) and three
// significant digits: 950 -> "950", 6850 -> "6.85k", 999999 -> "1000k",
// 35875635 -> "35.9M".
std::string FormatSi(double value);

// A time as a person reads it: milliseconds below a second, seconds from
// there: 0.0123 -> "12.300 ms", 2.5 -> "2.500 s".
std::string FormatDuration(double seconds);

// "1 thread", "2 threads".
std::string Plural(int64_t n, const std::string& word);

}  // namespace phasor::cli

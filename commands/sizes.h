// Sizes and lists of sizes as users type them, parsed one way by every
// command. K, M, G mean 1024, 1024², 1024³.
//
//   ParseSize("--seq-len", "1M")            -> 1048576
//   ParseSizeList("--lengths", "4K, 64K")   -> {4096, 65536}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace phasor {

// An integer with an optional sign and an optional suffix K, M or G (either
// case), surrounded by optional spaces. Ranges are the caller's (CheckRange):
// "-1" parses so that the range check can name it. Throws UsageError naming
// the option and the text.
int64_t ParseSize(const std::string& option, const std::string& text);

// Sizes separated by commas, each with optional spaces around it: "1K, 16K,1M".
// Throws UsageError for an empty list or an empty entry.
std::vector<int64_t> ParseSizeList(const std::string& option, const std::string& text);

}  // namespace phasor

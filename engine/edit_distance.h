// How far apart two names are, for "did you mean" suggestions on a misspelt
// config key or command-line option.
#pragma once

#include <cstddef>
#include <string>

namespace phasor {

// Levenshtein distance: the fewest single-character insertions, deletions and
// substitutions that turn a into b. O(|a|·|b|) time; callers bound the lengths.
size_t EditDistance(const std::string& a, const std::string& b);

}  // namespace phasor

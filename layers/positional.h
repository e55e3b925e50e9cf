// The options that name a positional scheme, shared by every positional layer,
// and their spellings in config.json and on the command line.
#pragma once

#include <string>

namespace phasor {

// Where the sin and cos of pair i live in a row of d_model values.
enum class PeLayout {
  kInterleaved,  // PE[2i] = sin, PE[2i+1] = cos (Attention Is All You Need)
  kSplit,        // PE[i] = sin, PE[d/2 + i] = cos (tensor2tensor, fairseq)
};

// The exponent's denominator in freq_i = base^(-i / denom_half).
enum class PeDenominator {
  kDModel,        // freq_i = base^(-2i/d_model)
  kHalfMinusOne,  // freq_i = base^(-i/(d_model/2 - 1))
};

// How rows are produced.
enum class PeMode {
  kCached,    // a table of max_len rows, computed once; a position past it is an error
  kOnTheFly,  // computed on every call by exact rotation, no table
  kAuto,      // the table inside max_len, on the fly beyond it
};

// Parse the config/CLI spellings ("interleaved", "d_model", "on_the_fly", ...).
// Throw Error naming the accepted values for anything else.
PeLayout ParsePeLayout(const std::string& s);
PeDenominator ParsePeDenominator(const std::string& s);
PeMode ParsePeMode(const std::string& s);

const char* ToString(PeLayout v);
const char* ToString(PeDenominator v);
const char* ToString(PeMode v);

}  // namespace phasor

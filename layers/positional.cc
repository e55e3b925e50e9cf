#include "layers/positional.h"

#include "engine/error.h"

namespace phasor {

PeLayout ParsePeLayout(const std::string& s) {
  if (s == "interleaved") return PeLayout::kInterleaved;
  if (s == "split") return PeLayout::kSplit;
  throw Error("unknown layout '" + s + "', expected 'interleaved' or 'split'");
}

PeDenominator ParsePeDenominator(const std::string& s) {
  if (s == "d_model") return PeDenominator::kDModel;
  if (s == "half_minus_one") return PeDenominator::kHalfMinusOne;
  throw Error("unknown denominator '" + s + "', expected 'd_model' or 'half_minus_one'");
}

PeMode ParsePeMode(const std::string& s) {
  if (s == "cached") return PeMode::kCached;
  if (s == "on_the_fly") return PeMode::kOnTheFly;
  if (s == "auto") return PeMode::kAuto;
  throw Error("unknown PE mode '" + s + "', expected 'cached', 'on_the_fly' or 'auto'");
}

const char* ToString(PeLayout v) { return v == PeLayout::kInterleaved ? "interleaved" : "split"; }

const char* ToString(PeDenominator v) {
  return v == PeDenominator::kDModel ? "d_model" : "half_minus_one";
}

const char* ToString(PeMode v) {
  switch (v) {
    case PeMode::kCached:
      return "cached";
    case PeMode::kOnTheFly:
      return "on_the_fly";
    case PeMode::kAuto:
      return "auto";
  }
  return "?";
}

}  // namespace phasor

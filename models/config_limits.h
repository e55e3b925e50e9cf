// The ranges of a model's sizes (README "Model directory"), for phasor's own
// config.json (models/config.cc) and for every checkpoint's config that is
// translated into it (models/architectures/): one set of bounds, so that a
// size one reader takes the other never refuses. Weight counts above
// kMaxWeightFloats (engine/size_limits.h) are refused as absurd rather than
// left to fail in an allocator.
#pragma once

#include <cstdint>

namespace phasor {

inline constexpr int64_t kMaxVocab = (int64_t{1} << 31) - 1;
inline constexpr int64_t kMaxDModel = 65536;
inline constexpr int64_t kMaxDFF = int64_t{1} << 20;
inline constexpr int64_t kMaxLayers = 1024;
inline constexpr int64_t kMaxPositions = int64_t{1} << 26;  // rows of a position table

}  // namespace phasor

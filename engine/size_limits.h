// Sizes past which a request is a mistake whatever memory the machine has.
// They are refused with a message rather than left to overflow an index or to
// fail inside an allocator. The memory limit (engine/memory_limit.h) caps what
// is actually allocated; these cap what may be asked for at all.
#pragma once

#include <cstdint>

namespace phasor {

// A position: PE and RoPE rows, and a model's first-token offset.
inline constexpr int64_t kMaxPosition = int64_t{1} << 40;

// One activation buffer or workspace: 2^40 floats (4 TiB).
inline constexpr int64_t kMaxBufferFloats = int64_t{1} << 40;

// One weight tensor of a model config: 2^34 floats (64 GiB).
inline constexpr int64_t kMaxWeightFloats = int64_t{1} << 34;

// One encoder call: batch·seq tokens, and batch·seq·d_model output values.
inline constexpr int64_t kMaxBatchTokens = int64_t{1} << 26;
inline constexpr int64_t kMaxBatchValues = int64_t{1} << 31;

}  // namespace phasor

// A process-wide memory cap: the most bytes one request may allocate.
//
// Sizes come from outside (a config's d_model, a safetensors header, a tokens
// file, a command line), so every large allocation is sized first and checked
// here before anything is allocated. A call site passes the total of what it is
// about to hold (the loader: all tensors of a file; a config: the whole model;
// a workspace: all its buffers), not one vector at a time. The cap is a plain
// number, not an accounting of live memory: it turns "d_model 2^30" into a
// clear error instead of an allocator failure or the OOM killer.
//
//   SetMemoryLimit(ParseByteSize("4G"));
//   CheckAllocation(rows * d_model * sizeof(float), "the PE table");  // may throw
#pragma once

#include <cstdint>
#include <string>

namespace phasor {

// The default cap: 3/4 of the physical memory, or 8 GiB if that is unknown.
uint64_t DefaultMemoryLimit();

// Sets the cap in bytes for the whole process (0: no cap). Thread-safe.
void SetMemoryLimit(uint64_t bytes);
// The current cap (DefaultMemoryLimit() until SetMemoryLimit is called).
uint64_t MemoryLimit();

// Throws Error "<what> needs <bytes>, more than the memory limit of <cap> (set
// with --max-memory)" when bytes exceed the cap. what names the thing, e.g.
// "model.safetensors: the tensors" or "config.json: the model".
void CheckAllocation(uint64_t bytes, const std::string& what);

// a * b, or UINT64_MAX if the product overflows (so CheckAllocation refuses it).
uint64_t SaturatingMul(uint64_t a, uint64_t b);

// "4G", "512M", "1.5GiB", "100000", "8 GB": a byte count with an optional
// binary suffix (K, M, G, T; "B", "iB" allowed; powers of 1024). Throws
// UsageError naming text for anything else, for 0 and for sizes past 2^62.
uint64_t ParseByteSize(const std::string& text);

// A byte count for a message: "512 B", "3.2 MiB", "8 GiB".
std::string FormatBytes(uint64_t bytes);

}  // namespace phasor

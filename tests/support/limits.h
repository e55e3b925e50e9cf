// Test helpers for the memory limit and for error messages.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "engine/error.h"
#include "engine/memory_limit.h"

namespace phasor::testing {

// Sets the process-wide memory limit for one scope and restores it.
class ScopedLimit {
 public:
  explicit ScopedLimit(uint64_t bytes) : saved_(MemoryLimit()) { SetMemoryLimit(bytes); }
  ~ScopedLimit() { SetMemoryLimit(saved_); }
  ScopedLimit(const ScopedLimit&) = delete;
  ScopedLimit& operator=(const ScopedLimit&) = delete;

 private:
  uint64_t saved_;
};

// The message of the Error fn throws, or "" if it throws none.
inline std::string ErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The message of the UsageError fn throws, or "" if it throws none (another
// Error passes through and fails the test).
inline std::string UsageErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace phasor::testing

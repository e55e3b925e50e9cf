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

// The message of the exception of type E (Error or one derived from it) that
// fn throws, or "" if it throws none; another exception passes through and
// fails the test.
template <class E>
std::string MessageOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}
inline std::string ErrorOf(const std::function<void()>& fn) { return MessageOf<Error>(fn); }
inline std::string UsageErrorOf(const std::function<void()>& fn) {
  return MessageOf<UsageError>(fn);
}

}  // namespace phasor::testing

// libFuzzer target: see FuzzModel in harness.h.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/harness.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  phasor::SetMemoryLimit(phasor::fuzz::kFuzzMemoryLimit);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  phasor::fuzz::FuzzModel(data, size);
  return 0;
}

// ExpShifted's vectors on the portable target: none; vector_math.cc's scalar
// loop does the whole row (the compiler vectorises what it can).
#include <cstdint>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::portable {

int64_t ExpShifted(const float* /*x*/, float /*shift*/, int64_t /*n*/, float* /*out*/) { return 0; }

}  // namespace phasor::kernels::portable

#include "engine/kernels/half.h"

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels {

void HalfToFloatRow(const uint16_t* h, int64_t n, float* out) {
  Kernels().half_to_float(h, n, out);
}

}  // namespace phasor::kernels

// The binary16 conversion for AVX2 (built with -mavx2 -mfma): the portable
// formula in 256-bit vectors. F16C's vcvtph2ps is not used, since the avx2
// target does not require F16C (and it quiets signalling NaNs).
#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx2 {
namespace {
#include "engine/kernels/half_bits.inc"
}  // namespace

#include "engine/kernels/half_rows.inc"

}  // namespace phasor::kernels::avx2

// The binary16 conversion on the portable target (the reference the other
// targets are tested against): half_bits.inc in a loop the compiler vectorises.
#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::portable {
namespace {
#include "engine/kernels/half_bits.inc"
}  // namespace

#include "engine/kernels/half_rows.inc"

}  // namespace phasor::kernels::portable

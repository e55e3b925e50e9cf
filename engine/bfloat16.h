// Scalar conversions between float and the two 16-bit float formats phasor
// reads and computes with: IEEE 754 binary16 (F16 weights) and bfloat16 (BF16
// weights, the bf16 and int8 precisions' rounded rows). Exact where the format
// allows, on any CPU; the vector forms live with their kernels
// (engine/kernels/gemm_bf16.h RoundBf16).
#pragma once

#include <cstdint>
#include <cstring>

namespace phasor {

// IEEE 754 binary16 bits to float, exactly: subnormals, infinities and NaN
// (payload kept) included. HalfToFloat(0x3C00) == 1.0f, (0x0001) == 2^-24.
float HalfToFloat(uint16_t bits);

#include "engine/bfloat16_bits.inc"  // BFloat16ToFloat, BFloat16RoundBits, FloatToBFloat16

}  // namespace phasor

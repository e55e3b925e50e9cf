// Rows of IEEE 754 binary16 values (F16 weights) to float32, on the chosen
// target (engine/cpu.h).
#pragma once

#include <cstdint>

namespace phasor::kernels {

// out[j] = the float of the binary16 bits h[j], j < n, exactly, every target
// the same bits as phasor::HalfToFloat (engine/bfloat16.h): subnormals,
// infinities and NaNs (payload and signalling bit kept) included. avx512
// converts with vcvtph2ps and puts back the NaNs it quiets; avx2 (whose CPUs
// need not have F16C) and portable run half_bits.inc's branch-free formula,
// which the compiler vectorises. h and out must not overlap.
void HalfToFloatRow(const uint16_t* h, int64_t n, float* out);

}  // namespace phasor::kernels

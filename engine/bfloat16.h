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

// bfloat16 bits (the top half of a float32) to float, exactly.
// BFloat16ToFloat(0x3F80) == 1.0f.
inline float BFloat16ToFloat(uint16_t bits) {
  const uint32_t u = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &u, sizeof(value));
  return value;
}

// The bfloat16 nearest to the float of bits u, ties to even: adding 0x7FFF plus
// the lowest kept bit carries into the kept half exactly when the dropped half
// is above the tie, or at it with an odd kept half. Finite values past the
// largest bfloat16 carry into the exponent and become infinities, as they
// should. A NaN is kept a NaN (its payload may sit in the dropped half alone)
// and made quiet. Branch-free, so that loops over rows vectorise.
inline uint16_t BFloat16RoundBits(uint32_t u) {
  const auto rounded = static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
  const auto quiet_nan = static_cast<uint16_t>((u >> 16) | 0x0040u);
  return (u & 0x7FFFFFFFu) > 0x7F800000u ? quiet_nan : rounded;
}

// float to bfloat16, to nearest, ties to even (BFloat16RoundBits).
inline uint16_t FloatToBFloat16(float v) {
  uint32_t u;
  std::memcpy(&u, &v, sizeof(u));
  return BFloat16RoundBits(u);
}

}  // namespace phasor

// The binary16 conversion (engine/kernels/half.h) on every target this CPU
// has: every one of the 65536 values against an independent reading of the
// format in long double (ldexp), and against the scalar HalfToFloat, at every
// start and length that reaches the vector bodies' heads and tails.
#include "engine/kernels/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/bfloat16.h"
#include "engine/cpu.h"
#include "engine/kernels/kernel_table.h"

namespace phasor::kernels {
namespace {

uint32_t BitsOf(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return u;
}

// The float32 bits binary16 h stands for, from the format's definition:
// (-1)^s · m · 2^-24 for exponent 0, (-1)^s · (1024 + m) · 2^(e - 25) otherwise,
// evaluated in long double; infinities as such; a NaN as the same sign, an
// all-ones exponent and the mantissa moved to the top of float's (its payload
// and signalling bit kept).
uint32_t ExpectedBits(uint16_t h) {
  const int sign = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 0x1f) {
    return (static_cast<uint32_t>(sign) << 31) | 0x7f800000u | (static_cast<uint32_t>(m) << 13);
  }
  const long double magnitude = e == 0 ? std::ldexp(static_cast<long double>(m), -24)
                                       : std::ldexp(static_cast<long double>(1024 + m), e - 25);
  return BitsOf(static_cast<float>(sign ? -magnitude : magnitude));
}

TEST(HalfTest, EveryValueConvertsExactlyOnEveryTarget) {
  std::vector<uint16_t> all(65536);
  for (uint32_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  for (uint32_t i = 0; i < all.size(); ++i) {
    ASSERT_EQ(BitsOf(HalfToFloat(all[i])), ExpectedBits(all[i])) << "scalar, bits " << i;
  }
  for (Isa isa : AvailableIsas()) {
    const auto convert = TableOf(isa).half_to_float;
    std::vector<float> out(all.size());
    convert(all.data(), static_cast<int64_t>(all.size()), out.data());
    for (uint32_t i = 0; i < all.size(); ++i) {
      ASSERT_EQ(BitsOf(out[i]), ExpectedBits(all[i])) << IsaName(isa) << ", bits " << i;
    }
    // Every start and length near the vectors' width: heads, tails, nothing
    // written past n.
    for (int64_t start : {0, 1, 3, 8, 15, 31744}) {
      for (int64_t n = 0; n <= 40; ++n) {
        std::vector<float> row(static_cast<size_t>(n) + 1, -7.0f);
        convert(all.data() + start, n, row.data());
        for (int64_t j = 0; j < n; ++j) {
          ASSERT_EQ(BitsOf(row[j]), ExpectedBits(all[start + j]))
              << IsaName(isa) << ", start " << start << ", n " << n << ", j " << j;
        }
        ASSERT_EQ(row[n], -7.0f) << IsaName(isa) << ": wrote past n = " << n;
      }
    }
  }
}

TEST(HalfTest, TheEntryPointRunsTheChosenTarget) {
  const uint16_t h[3] = {0x3C00, 0x0001, 0xFC00};  // 1, 2^-24, -inf
  float out[3];
  HalfToFloatRow(h, 3, out);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isinf(out[2]) && out[2] < 0);
}

}  // namespace
}  // namespace phasor::kernels

// The vector math kernels for AVX2 (built with -mavx2 -mfma):
// vector_math_simd.inc's bodies over simd_avx2.inc's vectors. ExpBf16 adds
// its values in one running sum, the last values in scalar code.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx2 {
namespace {
#include "engine/bfloat16_bits.inc"
#include "engine/kernels/exp_scalar.inc"
#include "engine/kernels/gelu_scalar.inc"
#include "engine/kernels/simd_avx2.inc"

constexpr int kExpBf16Sums = 1;
constexpr bool kExpBf16MaskedTail = false;
}  // namespace

#include "engine/kernels/vector_math_simd.inc"

}  // namespace phasor::kernels::avx2

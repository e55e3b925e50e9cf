// The vector math kernels for AVX-512 (built with -mavx512f and friends):
// vector_math_simd.inc's bodies over simd_avx512.inc's vectors. ExpBf16 adds
// its values in two running sums, the last values in a masked vector.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx512 {
namespace {
#include "engine/bfloat16_bits.inc"
#include "engine/kernels/exp_scalar.inc"
#include "engine/kernels/gelu_scalar.inc"
#include "engine/kernels/simd_avx512.inc"

constexpr int kExpBf16Sums = 2;
constexpr bool kExpBf16MaskedTail = true;
}  // namespace

#include "engine/kernels/vector_math_simd.inc"

}  // namespace phasor::kernels::avx512

// The layer norm kernel for AVX512 (built with -mavx512f and friends): layer_norm_simd.inc's
// body over simd_avx512.inc's vectors.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx512 {
namespace {
#include "engine/kernels/simd_avx512.inc"
}  // namespace

#include "engine/kernels/layer_norm_simd.inc"

}  // namespace phasor::kernels::avx512

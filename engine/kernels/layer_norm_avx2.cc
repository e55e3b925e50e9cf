// The layer norm kernel for AVX2 (built with -mavx2 -mfma): layer_norm_simd.inc's
// body over simd_avx2.inc's vectors.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx2 {
namespace {
#include "engine/kernels/simd_avx2.inc"
}  // namespace

#include "engine/kernels/layer_norm_simd.inc"

}  // namespace phasor::kernels::avx2

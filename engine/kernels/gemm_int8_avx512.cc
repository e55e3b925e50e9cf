// The int8 product's panel kernel for AVX-512 without VNNI (Skylake-SP and
// others; engine/cpu.cc takes gemm_int8_avx512vnni.cc's where the CPU has
// VNNI): the panel's bytes widened to int16 (vpmovsxbw) and multiplied by the
// row's widened quadruple with vpmaddwd, exact, into pairs of int32 partial
// sums per column that the epilogue adds. A 6 x 32 register tile: 24
// accumulators. Only intrinsics and this file's own functions: nothing here
// may be shared with code built for another target.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx512 {
namespace {

#include "engine/kernels/gemm_avx512_epilogue.inc"
#include "engine/kernels/simd_avx512.inc"
#include "engine/kernels/tile_rows.inc"

constexpr int64_t kRows = 6;  // rows of the register tile

// q[0..3] zero-extended to int16, repeated in all 32 lanes.
inline __m512i Quad(const uint8_t* q) {
  int32_t v;
  std::memcpy(&v, q, sizeof(v));
  return _mm512_cvtepu8_epi16(_mm256_set1_epi32(v));
}

// Lane pairs (2j, 2j + 1) of a ++ b added: 16 sums, a's 8 then b's 8.
inline __m512i AddPairs(__m512i a, __m512i b) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  return _mm512_add_epi32(_mm512_permutex2var_epi32(a, even, b),
                          _mm512_permutex2var_epi32(a, odd, b));
}

// Rows [0, MR) of the panel (Int8PanelArgs). a<r><g> covers columns
// [8g, 8g + 8): lanes 2j and 2j + 1 hold column 8g + j's sums over k = 0, 1
// and k = 2, 3 of each quadruple. Named variables, not an array: GCC 12 copies
// and spills an array's every accumulator on every k.
template <int MR>
void Tile(const Int8PanelArgs& p) {
  const Int8Columns columns = LoadInt8Columns(p);
  const __m512i zero_i = _mm512_setzero_si512();
  __m512i a00 = zero_i, a01 = zero_i, a02 = zero_i, a03 = zero_i, a10 = zero_i, a11 = zero_i,
          a12 = zero_i, a13 = zero_i, a20 = zero_i, a21 = zero_i, a22 = zero_i, a23 = zero_i,
          a30 = zero_i, a31 = zero_i, a32 = zero_i, a33 = zero_i, a40 = zero_i, a41 = zero_i,
          a42 = zero_i, a43 = zero_i, a50 = zero_i, a51 = zero_i, a52 = zero_i, a53 = zero_i;
  const int64_t ldq = p.ldq;
  ForEachQuad(p, [&](const uint8_t* q, const int8_t* panel) {
    const __m512i w0 =
        _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel)));
    const __m512i w1 =
        _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + 32)));
    const __m512i w2 =
        _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + 64)));
    const __m512i w3 =
        _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + 96)));
#define PHASOR_INT8_ROW(r)                                         \
  if constexpr (MR > r) {                                          \
    const __m512i x = Quad(q + r * ldq);                           \
    a##r##0 = _mm512_add_epi32(a##r##0, _mm512_madd_epi16(x, w0)); \
    a##r##1 = _mm512_add_epi32(a##r##1, _mm512_madd_epi16(x, w1)); \
    a##r##2 = _mm512_add_epi32(a##r##2, _mm512_madd_epi16(x, w2)); \
    a##r##3 = _mm512_add_epi32(a##r##3, _mm512_madd_epi16(x, w3)); \
  }
    PHASOR_ROWS_6(PHASOR_INT8_ROW)
#undef PHASOR_INT8_ROW
  });
  const __m512i acc[6][4] = {{a00, a01, a02, a03}, {a10, a11, a12, a13}, {a20, a21, a22, a23},
                             {a30, a31, a32, a33}, {a40, a41, a42, a43}, {a50, a51, a52, a53}};
  for (int r = 0; r < MR; ++r) {
    StoreInt8Row(AddPairs(acc[r][0], acc[r][1]), AddPairs(acc[r][2], acc[r][3]), p.row_scales[r],
                 columns, p.relu, p.c + r * p.ldc);
  }
}

constexpr void (*kTiles[kRows + 1])(const Int8PanelArgs&) = {nullptr, PHASOR_TILES_6};

}  // namespace

void Int8Panel(const Int8PanelArgs& p) { ForRowTiles<kRows>(p, kTiles); }

#include "engine/kernels/int8_rows_simd.inc"

}  // namespace phasor::kernels::avx512

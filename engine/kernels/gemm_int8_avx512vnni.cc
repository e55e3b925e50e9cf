// The int8 product's panel kernel for AVX-512 with VNNI (built with the avx512
// flags and -mavx512vnni; engine/cpu.cc takes it only on CPUs with VNNI): an
// 8 x 32 register tile of vpdpbusd, each a 64-byte load of the panel (16
// columns x 4 k) times a broadcast quadruple of the row's unsigned bytes.
// Only intrinsics and this file's own functions: nothing here may be shared
// with code built for another target.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx512vnni {
namespace {

#include "engine/kernels/gemm_avx512_epilogue.inc"
#include "engine/kernels/tile_rows.inc"

constexpr int64_t kRows = 8;  // rows of the register tile

inline __m512i Quad(const uint8_t* q) {  // q[0..3] in every 32-bit lane
  int32_t v;
  std::memcpy(&v, q, sizeof(v));
  return _mm512_set1_epi32(v);
}

// Rows [0, MR) of the panel (Int8PanelArgs); 2·MR accumulators stay in
// registers across k. They are named variables (a<row><half>): held in an
// array, GCC 12 copies every one of them on every k. Partial panels store
// through masks.
template <int MR>
void Tile(const Int8PanelArgs& p) {
  const Int8Columns columns = LoadInt8Columns(p);
  const __m512i zero_i = _mm512_setzero_si512();
  __m512i a00 = zero_i, a01 = zero_i, a10 = zero_i, a11 = zero_i, a20 = zero_i, a21 = zero_i,
          a30 = zero_i, a31 = zero_i, a40 = zero_i, a41 = zero_i, a50 = zero_i, a51 = zero_i,
          a60 = zero_i, a61 = zero_i, a70 = zero_i, a71 = zero_i;
  const int64_t ldq = p.ldq;
  ForEachQuad(p, [&](const uint8_t* q, const int8_t* panel) {
    const __m512i w0 = _mm512_loadu_si512(panel);
    const __m512i w1 = _mm512_loadu_si512(panel + 64);
#define PHASOR_INT8_ROW(r)                         \
  if constexpr (MR > r) {                          \
    const __m512i x = Quad(q + r * ldq);           \
    a##r##0 = _mm512_dpbusd_epi32(a##r##0, x, w0); \
    a##r##1 = _mm512_dpbusd_epi32(a##r##1, x, w1); \
  }
    PHASOR_ROWS_8(PHASOR_INT8_ROW)
#undef PHASOR_INT8_ROW
  });
  const __m512i acc[8][2] = {{a00, a01}, {a10, a11}, {a20, a21}, {a30, a31},
                             {a40, a41}, {a50, a51}, {a60, a61}, {a70, a71}};
  for (int r = 0; r < MR; ++r)
    StoreInt8Row(acc[r][0], acc[r][1], p.row_scales[r], columns, p.relu, p.c + r * p.ldc);
}

constexpr void (*kTiles[kRows + 1])(const Int8PanelArgs&) = {nullptr, PHASOR_TILES_8};

}  // namespace

void Int8Panel(const Int8PanelArgs& p) { ForRowTiles<kRows>(p, kTiles); }

}  // namespace phasor::kernels::avx512vnni

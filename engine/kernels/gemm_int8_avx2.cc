// The int8 product's panel kernel for AVX2 (built with -mavx2 -mfma; no
// AVX-VNNI, which Haswell lacks): int16 products summed in pairs by vpmaddwd,
// exact (vpmaddubsw would saturate), into int32 partial sums per column that
// the epilogue adds. Widening bytes in the product's loop would take the
// shuffle port as often as the multiplies take theirs; instead a chunk of
// kQuads k quads of the panel is widened to int16 once per block of rows
// ([kQuads][32][4], in L1), and the rows' chunk likewise, so that the loop
// holds only loads (a row's quadruple broadcast straight from memory) and
// multiply-adds: a 6 x 8 register tile, 12 accumulators, 2 panel and 1 row
// register of the 16. Between chunks the partial sums wait in a buffer on the
// stack; integer sums are exact, so nothing depends on the chunking. Only
// intrinsics and this file's own functions: nothing here may be shared with
// code built for another target.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx2 {
namespace {

#include "engine/kernels/simd_avx2.inc"
#include "engine/kernels/tile_rows.inc"  // PHASOR_ROWS_6

constexpr int kPanel = 32;
constexpr int kQuad = 4;
constexpr int64_t kQuads = 64;       // k quads widened at a time: 16 KiB of panel
constexpr int64_t kBlockRows = 24;   // rows widened at a time: 12 KiB
constexpr int64_t kRows = 6;         // rows of the register tile
constexpr int kGroups = kPanel / 8;  // column groups of 8 (two vectors of 4 x 4 k)

// Lane pairs of a ++ b added, in column order: a and b hold 4 columns each as
// (k = 0, 1; k = 2, 3) pairs; the result holds a's 4 columns then b's.
inline __m256i AddPairs(__m256i a, __m256i b) {
  return _mm256_permute4x64_epi64(_mm256_hadd_epi32(a, b), 0xD8);
}

// A row's widened quadruple kk, in all four 64-bit lanes (a broadcast load).
inline __m256i Quad(const int16_t* x) {
  int64_t v;
  std::memcpy(&v, x, sizeof(v));
  return _mm256_set1_epi64x(v);
}

// Rows [0, MR) x column group g over nq widened quads: w [nq][32][4] int16,
// x [MR][4·kQuads] int16 (row stride 4·kQuads); sums [MR][kGroups][2][8] the
// partial sums, read and written back. Named variables, not an array: GCC 12
// copies an array's every accumulator on every k.
template <int MR>
void Tile(const int16_t* w, const int16_t* x, int64_t nq, int g, int32_t* sums) {
  constexpr int64_t kLdx = kQuad * kQuads;
  constexpr int64_t kLds = kGroups * 16;  // a row's partial sums
  __m256i a00, a01, a10, a11, a20, a21, a30, a31, a40, a41, a50, a51;
#define PHASOR_INT8_LOAD(r)                                                                       \
  if constexpr (MR > r) {                                                                         \
    a##r##0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums + r * kLds + 16 * g));     \
    a##r##1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums + r * kLds + 16 * g + 8)); \
  }
  PHASOR_ROWS_6(PHASOR_INT8_LOAD)
#undef PHASOR_INT8_LOAD
  const int16_t* wg = w + 8 * kQuad * g;
  for (int64_t kk = 0; kk < nq; ++kk, wg += kPanel * kQuad, x += kQuad) {
    const __m256i w0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(wg));
    const __m256i w1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(wg + 16));
#define PHASOR_INT8_ROW(r)                                         \
  if constexpr (MR > r) {                                          \
    const __m256i q = Quad(x + r * kLdx);                          \
    a##r##0 = _mm256_add_epi32(a##r##0, _mm256_madd_epi16(q, w0)); \
    a##r##1 = _mm256_add_epi32(a##r##1, _mm256_madd_epi16(q, w1)); \
  }
    PHASOR_ROWS_6(PHASOR_INT8_ROW)
#undef PHASOR_INT8_ROW
  }
#define PHASOR_INT8_STORE(r)                                                                \
  if constexpr (MR > r) {                                                                   \
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + r * kLds + 16 * g), a##r##0);     \
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + r * kLds + 16 * g + 8), a##r##1); \
  }
  PHASOR_ROWS_6(PHASOR_INT8_STORE)
#undef PHASOR_INT8_STORE
}

using TileFn = void (*)(const int16_t*, const int16_t*, int64_t, int, int32_t*);
constexpr TileFn kTiles[kRows + 1] = {nullptr, Tile<1>, Tile<2>, Tile<3>,
                                      Tile<4>, Tile<5>, Tile<6>};

// Rows [0, nr) of c from their partial sums (Int8PanelArgs' epilogue).
void Finish(const Int8PanelArgs& p, int64_t r0, int64_t nr, const int32_t* sums) {
  const __m256 zero = _mm256_setzero_ps();
  for (int g = 0; 8 * g < p.n_valid; ++g) {
    const int64_t j0 = 8 * g;  // the panel's sums, scales and bias hold 32 values
    const __m256i m = _mm256_castps_si256(Lanes(p.n_valid - j0));
    const __m256i s =
        _mm256_slli_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.sums + j0)), 7);
    const __m256 sc = _mm256_loadu_ps(p.scales + j0), b = _mm256_loadu_ps(p.bias + j0);
    for (int64_t r = 0; r < nr; ++r) {
      const int32_t* a = sums + r * kGroups * 16 + 16 * g;
      const __m256i acc = AddPairs(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a)),
                                   _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 8)));
      const __m256 sx = _mm256_set1_ps(p.row_scales[r0 + r]);
      __m256 y = _mm256_cvtepi32_ps(_mm256_sub_epi32(acc, s));
      y = _mm256_add_ps(_mm256_mul_ps(y, _mm256_mul_ps(sx, sc)), b);
      if (p.relu) y = _mm256_max_ps(zero, y);  // max(y, 0) keeping NaN, as std::max(y, 0.0f)
      _mm256_maskstore_ps(p.c + (r0 + r) * p.ldc + j0, m, y);
    }
  }
}

}  // namespace

void Int8Panel(const Int8PanelArgs& p) {
  alignas(32) int16_t w[kQuads * kPanel * kQuad];       // [kQuads][32][4]: the chunk's panel
  alignas(32) int16_t x[kBlockRows * kQuad * kQuads];   // [kBlockRows][4·kQuads]: the rows' chunk
  alignas(32) int32_t sums[kBlockRows * kGroups * 16];  // [kBlockRows][kGroups][2][8]: 6 KiB
  const int groups = static_cast<int>((p.n_valid + 7) / 8);
  for (int64_t r0 = 0; r0 < p.rows; r0 += kBlockRows) {
    const int64_t nr = p.rows - r0 < kBlockRows ? p.rows - r0 : kBlockRows;
    std::memset(sums, 0, sizeof(sums));
    for (int64_t q0 = 0; q0 < p.k4; q0 += kQuads) {
      const int64_t nq = p.k4 - q0 < kQuads ? p.k4 - q0 : kQuads;
      const int8_t* panel = p.panel + q0 * kPanel * kQuad;
      for (int64_t i = 0; i < nq * kPanel * kQuad; i += 16) {
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(panel + i));
        _mm256_store_si256(reinterpret_cast<__m256i*>(w + i), _mm256_cvtepi8_epi16(b));
      }
      for (int64_t r = 0; r < nr; ++r) {
        const uint8_t* q = p.q + (r0 + r) * p.ldq + kQuad * q0;
        int16_t* xr = x + r * kQuad * kQuads;
        int64_t k = 0;
        for (; k + 16 <= kQuad * nq; k += 16) {
          const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + k));
          _mm256_store_si256(reinterpret_cast<__m256i*>(xr + k), _mm256_cvtepu8_epi16(b));
        }
        for (; k < kQuad * nq; ++k) xr[k] = q[k];
      }
      for (int64_t t0 = 0; t0 < nr; t0 += kRows) {
        const int64_t mr = nr - t0 < kRows ? nr - t0 : kRows;
        for (int g = 0; g < groups; ++g) {
          kTiles[mr](w, x + t0 * kQuad * kQuads, nq, g, sums + t0 * kGroups * 16);
        }
      }
    }
    Finish(p, r0, nr, sums);
  }
}

#include "engine/kernels/int8_rows_simd.inc"

}  // namespace phasor::kernels::avx2

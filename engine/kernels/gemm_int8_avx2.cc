// The int8 product's panel kernel for AVX2 (built with -mavx2 -mfma; no
// AVX-VNNI, which Haswell lacks): the panel's bytes widened to int16
// (vpmovsxbw) and multiplied by the row's widened quadruple with vpmaddwd,
// exact (vpmaddubsw would saturate), into pairs of int32 partial sums per
// column that the epilogue adds. A 2 x 16 register tile, twice per panel: 8
// accumulators, 4 panel and 2 row registers of the 16. Only intrinsics and
// this file's own functions: nothing here may be shared with code built for
// another target.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx2 {
namespace {

constexpr int kPanelBytes = 32 * 4;  // one k quadruple of a panel: [32][4]
constexpr int64_t kRows = 2;         // rows of the register tile

// q[0..3] zero-extended to int16, repeated in all 16 lanes.
inline __m256i Quad(const uint8_t* q) {
  int32_t v;
  std::memcpy(&v, q, sizeof(v));
  return _mm256_cvtepu8_epi16(_mm_set1_epi32(v));
}

// The lanes j < n of a vector (all for n >= 8, none for n <= 0).
inline __m256i Mask(int64_t n) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), lane);
}

// Lane pairs of a ++ b added, in column order: a and b hold 4 columns each as
// (k = 0, 1; k = 2, 3) pairs; the result holds a's 4 columns then b's.
inline __m256i AddPairs(__m256i a, __m256i b) {
  return _mm256_permute4x64_epi64(_mm256_hadd_epi32(a, b), 0xD8);
}

// Rows [0, MR) x columns [16h, 16h + 16) of the panel (Int8PanelArgs); c
// points at column 16h of row 0. a<r><g> covers columns 16h + [4g, 4g + 4).
// Named variables, not an array: GCC 12 copies an array's every accumulator
// on every k.
template <int MR>
void Tile(const Int8PanelArgs& p, int h, const uint8_t* q, const float* row_scales, float* c) {
  const __m256i zero_i = _mm256_setzero_si256();
  __m256i a00 = zero_i, a01 = zero_i, a02 = zero_i, a03 = zero_i, a10 = zero_i, a11 = zero_i,
          a12 = zero_i, a13 = zero_i;
  const int8_t* panel = p.panel + 64 * h;
  const int64_t ldq = p.ldq;
  for (int64_t kk = 0; kk < p.k4; ++kk, panel += kPanelBytes, q += 4) {
    const __m256i w0 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(panel)));
    const __m256i w1 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(panel + 16)));
    const __m256i w2 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(panel + 32)));
    const __m256i w3 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(panel + 48)));
#define PHASOR_INT8_ROW(r)                                         \
  if constexpr (MR > r) {                                          \
    const __m256i x = Quad(q + r * ldq);                           \
    a##r##0 = _mm256_add_epi32(a##r##0, _mm256_madd_epi16(x, w0)); \
    a##r##1 = _mm256_add_epi32(a##r##1, _mm256_madd_epi16(x, w1)); \
    a##r##2 = _mm256_add_epi32(a##r##2, _mm256_madd_epi16(x, w2)); \
    a##r##3 = _mm256_add_epi32(a##r##3, _mm256_madd_epi16(x, w3)); \
  }
    PHASOR_INT8_ROW(0)
    PHASOR_INT8_ROW(1)
#undef PHASOR_INT8_ROW
  }
  const __m256i acc[2][4] = {{a00, a01, a02, a03}, {a10, a11, a12, a13}};
  const int64_t n = p.n_valid - 16 * h;
  const __m256i m0 = Mask(n), m1 = Mask(n - 8);
  const int64_t j0 = 16 * h;  // the panel's sums, scales and bias hold 32 values
  const __m256i s0 =
      _mm256_slli_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.sums + j0)), 7);
  const __m256i s1 =
      _mm256_slli_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.sums + j0 + 8)), 7);
  const __m256 sc0 = _mm256_loadu_ps(p.scales + j0), sc1 = _mm256_loadu_ps(p.scales + j0 + 8);
  const __m256 b0 = _mm256_loadu_ps(p.bias + j0), b1 = _mm256_loadu_ps(p.bias + j0 + 8);
  const __m256 zero = _mm256_setzero_ps();
  for (int r = 0; r < MR; ++r) {
    const __m256 sx = _mm256_set1_ps(row_scales[r]);
    const __m256i a0 = AddPairs(acc[r][0], acc[r][1]), a1 = AddPairs(acc[r][2], acc[r][3]);
    __m256 y0 = _mm256_cvtepi32_ps(_mm256_sub_epi32(a0, s0));
    __m256 y1 = _mm256_cvtepi32_ps(_mm256_sub_epi32(a1, s1));
    y0 = _mm256_add_ps(_mm256_mul_ps(y0, _mm256_mul_ps(sx, sc0)), b0);
    y1 = _mm256_add_ps(_mm256_mul_ps(y1, _mm256_mul_ps(sx, sc1)), b1);
    if (p.relu) {  // max(y, 0) keeping NaN, as std::max(y, 0.0f)
      y0 = _mm256_max_ps(zero, y0);
      y1 = _mm256_max_ps(zero, y1);
    }
    _mm256_maskstore_ps(c + r * p.ldc, m0, y0);
    _mm256_maskstore_ps(c + r * p.ldc + 8, m1, y1);
  }
}

using TileFn = void (*)(const Int8PanelArgs&, int, const uint8_t*, const float*, float*);
constexpr TileFn kTiles[kRows + 1] = {nullptr, Tile<1>, Tile<2>};

}  // namespace

void Int8Panel(const Int8PanelArgs& p) {
  for (int64_t r0 = 0; r0 < p.rows; r0 += kRows) {
    const int64_t mr = p.rows - r0 < kRows ? p.rows - r0 : kRows;
    for (int h = 0; 16 * h < p.n_valid; ++h) {
      kTiles[mr](p, h, p.q + r0 * p.ldq, p.row_scales + r0, p.c + r0 * p.ldc + 16 * h);
    }
  }
}

int64_t Int8MaxAbs(const float* x, int64_t n, float* max_abs, bool* finite) {
  const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256 zero = _mm256_setzero_ps();
  __m256 m = zero, nan = zero;
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    const __m256 a = _mm256_and_ps(_mm256_loadu_ps(x + k), magnitude);
    m = _mm256_max_ps(a, m);  // a > m ? a : m: a NaN leaves m
    nan = _mm256_add_ps(nan, _mm256_mul_ps(a, zero));
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, m);
  float best = 0.0f;
  for (float v : lanes) best = v > best ? v : best;
  *max_abs = best;
  *finite = _mm256_movemask_ps(_mm256_cmp_ps(nan, nan, _CMP_UNORD_Q)) == 0;
  return k;
}

int64_t Int8Quantize(const float* x, int64_t n, float inv, uint8_t* q) {
  const __m256 scale = _mm256_set1_ps(inv), magic = _mm256_set1_ps(12582912.0f);  // 1.5·2^23
  const __m256 lo = _mm256_set1_ps(-127.0f), hi = _mm256_set1_ps(127.0f);
  const __m256i offset = _mm256_set1_epi32(128);
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    // Rounded to even by adding and subtracting 1.5·2^23, as gemm_int8.cc does.
    __m256 v =
        _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(x + k), scale), magic), magic);
    v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
    const __m256i i = _mm256_add_epi32(_mm256_cvtps_epi32(v), offset);  // [1, 255]
    const __m256i w = _mm256_packus_epi32(i, i);  // per 128-bit lane: 4 values, twice
    const __m256i b = _mm256_packus_epi16(w, w);  // their bytes: lane 0's then lane 1's
    const int32_t first = _mm256_cvtsi256_si32(b);
    const int32_t second = _mm_cvtsi128_si32(_mm256_extracti128_si256(b, 1));
    std::memcpy(q + k, &first, 4);
    std::memcpy(q + k + 4, &second, 4);
  }
  return k;
}

}  // namespace phasor::kernels::avx2

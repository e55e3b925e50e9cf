// TransposePanels for AVX-512 (built with -mavx512f and friends): blocks of
// 16 rows x 16 columns transposed in registers (two unpack stages within
// 128-bit lanes, then two of whole lanes). Only intrinsics and this file's own
// functions: nothing here may be shared with code built for another target.
#include <immintrin.h>

#include <cstdint>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::avx512 {
namespace {

constexpr int64_t kPanel = 32;

// Two 128-bit lanes of a, then two of b, as kImm picks them (vshuff32x4).
template <int kImm>
inline __m512 Lanes(__m512 a, __m512 b) {
  return _mm512_maskz_shuffle_f32x4(0xFFFF, a, b, kImm);
}

// Rows [0, m) and columns [0, nc) of x (row stride ldx; the rest as zeros),
// transposed: column j (< nc) as 16 floats at out + j·ldo.
void Transpose16(const float* x, int64_t ldx, int64_t m, int64_t nc, float* out, int64_t ldo) {
  const __mmask16 cols = nc >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << nc) - 1);
  __m512 r[16];
  for (int i = 0; i < 16; ++i) {
    r[i] = i < m ? _mm512_maskz_loadu_ps(cols, x + i * ldx) : _mm512_setzero_ps();
  }
  // (The zero-masked unpacks keep GCC 12 from warning about the undefined
  // vector the unmasked ones start from.) Per 128-bit lane L and row group g (rows 4g .. 4g + 3):
  // u[g][c] holds column c + 4L of the group's rows.
  __m512 u[4][4];
  for (int g = 0; g < 4; ++g) {
    const __m512 t0 = _mm512_maskz_unpacklo_ps(0xFFFF, r[4 * g], r[4 * g + 1]);
    const __m512 t1 = _mm512_maskz_unpackhi_ps(0xFFFF, r[4 * g], r[4 * g + 1]);
    const __m512 t2 = _mm512_maskz_unpacklo_ps(0xFFFF, r[4 * g + 2], r[4 * g + 3]);
    const __m512 t3 = _mm512_maskz_unpackhi_ps(0xFFFF, r[4 * g + 2], r[4 * g + 3]);
    const auto lo = [](__m512 a, __m512 b) {
      return _mm512_castpd_ps(
          _mm512_maskz_unpacklo_pd(0xFF, _mm512_castps_pd(a), _mm512_castps_pd(b)));
    };
    const auto hi = [](__m512 a, __m512 b) {
      return _mm512_castpd_ps(
          _mm512_maskz_unpackhi_pd(0xFF, _mm512_castps_pd(a), _mm512_castps_pd(b)));
    };
    u[g][0] = lo(t0, t2);
    u[g][1] = hi(t0, t2);
    u[g][2] = lo(t1, t3);
    u[g][3] = hi(t1, t3);
  }
  // Column c + 4L: lane L of u[0][c], u[1][c], u[2][c], u[3][c].
  for (int c = 0; c < 4; ++c) {
    const __m512 x0 = Lanes<0x44>(u[0][c], u[1][c]);  // u0.L0 u0.L1 u1.L0 u1.L1
    const __m512 x1 = Lanes<0xEE>(u[0][c], u[1][c]);  // u0.L2 u0.L3 u1.L2 u1.L3
    const __m512 x2 = Lanes<0x44>(u[2][c], u[3][c]);
    const __m512 x3 = Lanes<0xEE>(u[2][c], u[3][c]);
    const __m512 col[4] = {Lanes<0x88>(x0, x2), Lanes<0xDD>(x0, x2), Lanes<0x88>(x1, x3),
                           Lanes<0xDD>(x1, x3)};
    for (int lane = 0; lane < 4; ++lane) {
      const int64_t j = c + 4 * lane;
      if (j < nc) _mm512_storeu_ps(out + j * ldo, col[lane]);
    }
  }
}

}  // namespace

void TransposePanels(const float* x, int64_t ldx, int64_t rows, int64_t cols, float* out) {
  for (int64_t p0 = 0; p0 < rows; p0 += kPanel) {
    const int64_t m = rows - p0 < kPanel ? rows - p0 : kPanel;
    float* panel = out + p0 * cols;  // [cols, 32]
    for (int64_t c0 = 0; c0 < cols; c0 += 16) {
      const int64_t nc = cols - c0 < 16 ? cols - c0 : 16;
      for (int64_t h = 0; h < 2; ++h) {
        const int64_t mh = m - 16 * h < 0 ? 0 : (m - 16 * h > 16 ? 16 : m - 16 * h);
        Transpose16(x + (p0 + 16 * h) * ldx + c0, ldx, mh, nc, panel + c0 * kPanel + 16 * h,
                    kPanel);
      }
    }
  }
}

}  // namespace phasor::kernels::avx512

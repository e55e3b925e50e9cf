#include "engine/kernels/vector_math.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <unsupported/Eigen/SpecialFunctions>

#include "engine/tensor.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace phasor::kernels {
namespace {

constexpr int kLanes = 16;
constexpr float kInvSqrt2 = 0.70710678118654752440f;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr int64_t kChunk = 256;  // floats per pass through the aligned buffer
using AlignedArray = Eigen::Map<ArrayF, Eigen::Aligned64>;

// exp as Cephes' expf: exp(t) = 2^n · exp(r), n = floor(t·log2(e) + 1/2),
// r = t - n·ln 2 in two parts, exp(r) by a degree-7 polynomial; about 1 ulp.
// t is clamped to [kExpMin, kExpMax] so 2^n stays a normal float.
constexpr float kExpMin = -87.33654f, kExpMax = 88.0f;
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
constexpr float kExpP[6] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                            4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};

float ExpScalar(float t) {
  if (std::isnan(t)) return t;  // converting NaN to int is undefined; the vector path keeps it too
  t = std::min(std::max(t, kExpMin), kExpMax);
  const float fx = std::floor(t * kLog2e + 0.5f);
  t = t - fx * kLn2Hi;
  t = t - fx * kLn2Lo;
  const float z = t * t;
  float y = kExpP[0];
  for (int i = 1; i < 6; ++i) y = y * t + kExpP[i];
  y = y * z + t + 1.0f;
  const int32_t bits = (static_cast<int32_t>(fx) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return y * scale;
}

// Sums f(v[j]) into kLanes independent lanes (the compiler vectorises the
// inner loop without reassociating anything), then adds the lanes in a fixed
// tree.
template <class F>
float LaneSum(const float* v, int64_t n, F f) {
  float lanes[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int k = 0; k < kLanes; ++k) lanes[k] += f(v[j + k]);
  }
  for (int k = 0; j + k < n; ++k) lanes[k] += f(v[j + k]);
  for (int width = kLanes / 2; width >= 1; width /= 2) {
    for (int k = 0; k < width; ++k) lanes[k] += lanes[k + width];
  }
  return lanes[0];
}

// Runs op on x in chunks copied to an aligned buffer, so Eigen's vectorised
// loop always starts at the chunk's first value: which values go through the
// scalar tail depends on n only.
template <class Op>
void ThroughAlignedBuffer(const float* x, int64_t n, float* out, Op op) {
  alignas(64) float buffer[kChunk];
  for (int64_t j0 = 0; j0 < n; j0 += kChunk) {
    const int64_t m = std::min(kChunk, n - j0);
    AlignedArray b(buffer, m);
    b = ConstMapArray(x + j0, m);
    op(b);
    MapArray(out + j0, m) = b;
  }
}

}  // namespace

float Sum(const float* v, int64_t n) {
  return LaneSum(v, n, [](float a) { return a; });
}

float SumOfSquares(const float* v, int64_t n) {
  return LaneSum(v, n, [](float a) { return a * a; });
}

void ExpShifted(const float* x, float shift, int64_t n, float* out) {
  int64_t j = 0;
#if defined(__AVX512F__)
  // The vector form of ExpScalar, operation for operation (no fused
  // multiply-adds), so a value gives the same bits in either.
  const __m512 s = _mm512_set1_ps(shift), lo = _mm512_set1_ps(kExpMin),
               hi = _mm512_set1_ps(kExpMax), neg_inf = _mm512_set1_ps(kNegInf);
  for (; j < n; j += 16) {
    const __mmask16 m =
        n - j >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << (n - j)) - 1);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + j);
    const __m512 d = _mm512_sub_ps(v, s);
    // max_ps(NaN, lo) is lo: NaN lanes are put back at the end, as ExpScalar keeps them.
    const __mmask16 nan = _mm512_cmp_ps_mask(d, d, _CMP_UNORD_Q);
    __m512 t = _mm512_min_ps(_mm512_max_ps(d, lo), hi);
    const __m512 fx = _mm512_roundscale_ps(
        _mm512_add_ps(_mm512_mul_ps(t, _mm512_set1_ps(kLog2e)), _mm512_set1_ps(0.5f)),
        _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    t = _mm512_sub_ps(t, _mm512_mul_ps(fx, _mm512_set1_ps(kLn2Hi)));
    t = _mm512_sub_ps(t, _mm512_mul_ps(fx, _mm512_set1_ps(kLn2Lo)));
    const __m512 z = _mm512_mul_ps(t, t);
    __m512 y = _mm512_set1_ps(kExpP[0]);
    for (int i = 1; i < 6; ++i) {
      y = _mm512_add_ps(_mm512_mul_ps(y, t), _mm512_set1_ps(kExpP[i]));
    }
    y = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(y, z), t), _mm512_set1_ps(1.0f));
    const __m512i e =
        _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(fx), _mm512_set1_epi32(127)), 23);
    y = _mm512_mask_blend_ps(nan, _mm512_mul_ps(y, _mm512_castsi512_ps(e)), d);
    const __mmask16 masked = _mm512_cmp_ps_mask(v, neg_inf, _CMP_EQ_OQ);
    _mm512_mask_storeu_ps(out + j, m, _mm512_mask_blend_ps(masked, y, _mm512_setzero_ps()));
  }
#endif
  for (; j < n; ++j) out[j] = x[j] == kNegInf ? 0.0f : ExpScalar(x[j] - shift);
}

void GeluErf(const float* x, int64_t n, float* out) {
  ThroughAlignedBuffer(x, n, out,
                       [](AlignedArray& b) { b = 0.5f * b * (1.0f + (b * kInvSqrt2).erf()); });
}

}  // namespace phasor::kernels

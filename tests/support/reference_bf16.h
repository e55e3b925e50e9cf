// Naive twins of the bfloat16 product (engine/kernels/gemm_bf16.h), written
// from the definition and sharing no code with engine/kernels: the rounding
// compares the dropped half of the bits with the tie, the product sums in
// double. Besides each output, the twin returns what a float32 sum may add to
// it, so that tests state their bound once.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/kernels/activations.h"
#include "tests/support/reference_kernels.h"

namespace phasor::testing {

// bf16(v): the top 16 bits of v, plus one when the dropped 16 bits are above
// the tie (0x8000), or at it with the kept half odd. A NaN stays a NaN (quiet,
// sign kept) even when its payload lies in the dropped half alone.
inline uint16_t NaiveBf16(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  const uint32_t exponent = (bits >> 23) & 0xFFu, mantissa = bits & 0x7FFFFFu;
  uint32_t kept = bits >> 16;
  if (exponent == 0xFFu && mantissa != 0) return static_cast<uint16_t>(kept | 0x40u);
  const uint32_t dropped = bits & 0xFFFFu;
  if (dropped > 0x8000u || (dropped == 0x8000u && (kept & 1u) != 0)) ++kept;
  return static_cast<uint16_t>(kept);
}

inline double NaiveFromBf16(uint16_t h) {
  const uint32_t bits = uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// One output of the product and what float32 arithmetic may make of it.
struct Bf16Output {
  double sum = 0;        // b + Σ_k bf16(x)·bf16(W), in double (its rounding is negligible here)
  double magnitude = 0;  // |b| + Σ_k |bf16(x)·bf16(W)|: the float32 sum's error scale
  // Σ |bf16(x)·bf16(W)| over the terms a flush to zero may drop: a denormal
  // factor, or a product below the smallest normal float.
  double flushable = 0;
};

// The product before the activation: out[r·n_out + c] for W given in bfloat16
// (wb: [n_out, in] row-major) and x in float ([rows, in], rounded here).
inline std::vector<Bf16Output> NaiveBf16Product(const float* x, int64_t rows, int64_t in,
                                                const uint16_t* wb, const float* b, int64_t n_out) {
  const double kSmallestNormal = std::ldexp(1.0, -126);
  std::vector<Bf16Output> out(static_cast<size_t>(rows * n_out));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < n_out; ++c) {
      Bf16Output& o = out[r * n_out + c];
      o.sum = b != nullptr ? b[c] : 0.0;
      o.magnitude = std::fabs(o.sum);
      for (int64_t k = 0; k < in; ++k) {
        const double xv = NaiveFromBf16(NaiveBf16(x[r * in + k]));
        const double wv = NaiveFromBf16(wb[c * in + k]);
        const double t = xv * wv;
        o.sum += t;
        o.magnitude += std::fabs(t);
        const bool denormal_factor = (xv != 0 && std::fabs(xv) < kSmallestNormal) ||
                                     (wv != 0 && std::fabs(wv) < kSmallestNormal);
        if (denormal_factor || std::fabs(t) < kSmallestNormal) o.flushable += std::fabs(t);
      }
    }
  }
  return out;
}

// W [n_out, in] in float rounded to bfloat16 by the twin.
inline std::vector<uint16_t> NaiveBf16Weights(const float* w, int64_t n) {
  std::vector<uint16_t> wb(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) wb[i] = NaiveBf16(w[i]);
  return wb;
}

// The largest |y - act(sum)| a correct float32 product may show: the bound of
// a float32 sum of in + 1 terms, n·2^-24·Σ|terms| (n = in + 1 roundings, with
// a margin for the second-order term), what a flush to zero may drop, and for
// GELU its Lipschitz constant (< 1.13) and the fast kernel's own tolerance.
inline double Bf16Allowance(const Bf16Output& o, int64_t in, kernels::Activation act) {
  const double sum_error =
      1.01 * static_cast<double>(in + 1) * std::ldexp(o.magnitude, -24) + o.flushable + 1e-37;
  if (act != kernels::Activation::kGelu) return sum_error;
  return 1.13 * sum_error + 2e-6 + 2e-5 * std::fabs(ReferenceActivation(act, o.sum));
}

}  // namespace phasor::testing

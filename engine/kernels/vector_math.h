// Vectorised building blocks whose results depend only on the values, never
// on where the values sit in memory.
//
// Eigen vectorises a map from its first aligned address and handles the
// unaligned head with scalar code, so an Eigen sum, exp or erf over a row
// gives bits that depend on the row's address modulo 64 bytes: the same row in
// another buffer (or in the same buffer after another allocation) would give a
// slightly different result. These helpers fix the order of every operation
// (sums: 16 lanes, then a fixed tree; exp and erf: each target's kernel takes
// the values one vector at a time from the first, in a fixed sequence of
// operations), so kernels built on them are reproducible bit for bit.
#pragma once

#include <cstdint>

namespace phasor::kernels {

// Σ v[j], j < n, in a fixed order (more accurate than a running sum, too).
float Sum(const float* v, int64_t n);
// max_j v[j], j < n (-inf for n = 0); NaN values may or may not be ignored.
float Max(const float* v, int64_t n);
// Σ v[j]², j < n, in the same fixed order.
float SumOfSquares(const float* v, int64_t n);

// out[j] = exp(x[j] - shift) (Cephes' reduction to |r| <= ln(2)/2, then a
// minimax polynomial of degree 6 in each target's vectors, within 2 ulp: 1.02
// at most with fused multiply-adds, over every 31st float argument; exactly 0
// for x[j] = -inf, a masked score; NaN for a NaN argument; arguments below
// -87.3 give about 2^-126 rather than a subnormal, and above 88, about
// 1.65e38). A value gives the same bits wherever it sits; avx2 and avx512
// fuse the polynomial's multiply-adds and agree bit for bit, portable
// (unfused) within an ulp of them. out may equal x.
void ExpShifted(const float* x, float shift, int64_t n, float* out);

// ExpShifted, and returns Sum(out, n) bit for bit (its 16 lanes and tree) from
// the same pass: a softmax's weights and the sum they normalise by.
float ExpShiftedSum(const float* x, float shift, int64_t n, float* out);

// out[j] = ToBf16(exp(x[j] - shift)) (gemm_bf16.h) for j < n, and returns
// Σ_j FromBf16(out[j]): softmax weights in bfloat16 and the sum they normalise
// by, in one pass. exp is a degree-4 polynomial in fused multiply-adds on
// avx2 and avx512 (relative error under 6e-5 before the rounding; avx2 takes
// the last n mod 16 values with portable's unfused exp) and portable's
// ExpShifted on portable, so a weight may sit one bfloat16 step from
// ExpShifted's rounded; -inf gives 0, NaN NaN. The results and the sum's
// order are the target's, fixed for a given n.
float ExpBf16Sum(const float* x, float shift, int64_t n, uint16_t* out);

// out[j] = 0.5·x[j]·(1 + erf(x[j]/√2)) with Eigen's rational erf (a few ulp
// on [-4, 4], exactly ±1 beyond): the operations of Eigen's expression one by
// one, unfused (gelu_scalar.inc), in vectors on avx2 and avx512 and a scalar
// loop on portable, so every target gives the same bits (those of Eigen
// where Eigen does not fuse them: x86-64 builds without PHASOR_NATIVE). NaN
// gives NaN, +inf +inf, -inf NaN (-inf · 0, as Eigen). out may equal x.
void GeluErf(const float* x, int64_t n, float* out);

}  // namespace phasor::kernels

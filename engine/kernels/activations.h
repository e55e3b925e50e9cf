// Elementwise activations on rows of floats.
//
// Each fast kernel has a naive twin (plain loop, double precision) that the
// tests compare it against. out may equal x (in place); otherwise they may not
// overlap.
#pragma once

#include <cstdint>

namespace phasor::kernels {

enum class Activation {
  kIdentity,  // out = x
  kRelu,      // out = max(x, 0)
  kGelu,      // out = 0.5·x·(1 + erf(x/√2)), the exact (erf) form, not the tanh one
  kGeluTanh,  // out = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), Hugging Face's gelu_new
  kSilu,      // out = x·sigmoid(x) = x / (1 + e^-x), also called swish
};

// "identity", "relu", "gelu", "gelu_tanh", "silu"
const char* ToString(Activation act);

// Where a product's block of outputs goes: columns [col_begin, col_end) of
// its rows, output (r, c) at y + r·ldy + c, after act. The products
// (gemm.h, gemm_int8.h, gemm_bf16.h) take col_begin a multiple of their panel
// width (32) and col_end at most their out.
struct OutputBlock {
  int64_t col_begin = 0;
  int64_t col_end = 0;
  float* y = nullptr;
  int64_t ldy = 0;
  Activation act = Activation::kIdentity;
};

// The part of act a product's panel kernels leave to a pass over the block's
// rows [0, rows) once written: every one but relu (applied in the panels).
void FinishBlock(int64_t rows, const OutputBlock& out);

// out[j] = max(x[j], 0) for j < n.
void Relu(const float* x, int64_t n, float* out);
void ReluNaive(const float* x, int64_t n, float* out);

// out[j] = 0.5·x[j]·(1 + erf(x[j]/√2)) for j < n. The fast kernel uses a
// vectorised rational erf (Eigen's, a few ulp on [-4, 4], ±1 beyond); the
// naive twin uses std::erf in double.
void Gelu(const float* x, int64_t n, float* out);
void GeluNaive(const float* x, int64_t n, float* out);

// The tanh form of GELU (Eigen's vectorised tanh, a few ulp, the same code on
// every target) and SiLU (x / (1 + e^-x) with ExpShifted's exp: avx2 and
// avx512 the same bits, portable within an ulp of them). Their naive twins
// are ActivateNaive's. out may equal x.
void GeluTanh(const float* x, int64_t n, float* out);
void Silu(const float* x, int64_t n, float* out);

// Applies act to x[0..n) (kIdentity: a copy, nothing if out == x).
void Activate(Activation act, const float* x, int64_t n, float* out);
void ActivateNaive(Activation act, const float* x, int64_t n, float* out);

// act applied to one value in double precision: the naive twins' definition.
double ActivateNaive(Activation act, double x);

}  // namespace phasor::kernels

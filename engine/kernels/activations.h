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
};

const char* ToString(Activation act);  // "identity", "relu", "gelu"

// out[j] = max(x[j], 0) for j < n.
void Relu(const float* x, int64_t n, float* out);
void ReluNaive(const float* x, int64_t n, float* out);

// out[j] = 0.5·x[j]·(1 + erf(x[j]/√2)) for j < n. The fast kernel uses a
// vectorised rational erf (Eigen's, a few ulp on [-4, 4], ±1 beyond); the
// naive twin uses std::erf in double.
void Gelu(const float* x, int64_t n, float* out);
void GeluNaive(const float* x, int64_t n, float* out);

// Applies act to x[0..n) (kIdentity: a copy, nothing if out == x).
void Activate(Activation act, const float* x, int64_t n, float* out);
void ActivateNaive(Activation act, const float* x, int64_t n, float* out);

// act applied to one value in double precision: the naive twins' definition.
double ActivateNaive(Activation act, double x);

}  // namespace phasor::kernels

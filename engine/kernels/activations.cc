#include "engine/kernels/activations.h"

#include <cassert>
#include <cmath>
#include <cstring>

#include "engine/kernels/vector_math.h"
#include "engine/tensor.h"

namespace phasor::kernels {

const char* ToString(Activation act) {
  switch (act) {
    case Activation::kIdentity:
      return "identity";
    case Activation::kRelu:
      return "relu";
    case Activation::kGelu:
      return "gelu";
  }
  return "?";
}

void Relu(const float* x, int64_t n, float* out) {
  assert(n >= 0);
  MapArray(out, n) = ConstMapArray(x, n).max(0.0f);
}

void ReluNaive(const float* x, int64_t n, float* out) {
  for (int64_t j = 0; j < n; ++j) out[j] = x[j] > 0.0f ? x[j] : 0.0f;
}

void Gelu(const float* x, int64_t n, float* out) {
  assert(n >= 0);
  GeluErf(x, n, out);
}

void GeluNaive(const float* x, int64_t n, float* out) {
  for (int64_t j = 0; j < n; ++j)
    out[j] = static_cast<float>(ActivateNaive(Activation::kGelu, x[j]));
}

void Activate(Activation act, const float* x, int64_t n, float* out) {
  switch (act) {
    case Activation::kIdentity:
      if (out != x && n > 0) std::memcpy(out, x, static_cast<size_t>(n) * sizeof(float));
      return;
    case Activation::kRelu:
      Relu(x, n, out);
      return;
    case Activation::kGelu:
      Gelu(x, n, out);
      return;
  }
}

void ActivateNaive(Activation act, const float* x, int64_t n, float* out) {
  for (int64_t j = 0; j < n; ++j) out[j] = static_cast<float>(ActivateNaive(act, x[j]));
}

double ActivateNaive(Activation act, double x) {
  switch (act) {
    case Activation::kIdentity:
      return x;
    case Activation::kRelu:
      return x > 0.0 ? x : 0.0;
    case Activation::kGelu:
      return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  }
  return x;
}

void FinishBlock(int64_t rows, const OutputBlock& out) {
  if (out.act != Activation::kGelu) return;
  for (int64_t r = 0; r < rows; ++r) {
    float* row = out.y + r * out.ldy + out.col_begin;
    Gelu(row, out.col_end - out.col_begin, row);
  }
}

}  // namespace phasor::kernels

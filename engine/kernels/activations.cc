#include "engine/kernels/activations.h"

#include <algorithm>
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
    case Activation::kGeluTanh:
      return "gelu_tanh";
    case Activation::kSilu:
      return "silu";
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

void GeluTanh(const float* x, int64_t n, float* out) {
  assert(n >= 0);
  const auto a = ConstMapArray(x, n);
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  MapArray(out, n) = 0.5f * a * (1.0f + (kSqrt2OverPi * (a + 0.044715f * a * a * a)).tanh());
}

void Silu(const float* x, int64_t n, float* out) {
  assert(n >= 0);
  // e^-x by the targets' own exp (vector_math.h), whose bits do not depend on
  // where a value sits (Eigen's exp takes a row's tail by another path, so a
  // product split at other columns would differ), a chunk at a time so that
  // out may equal x.
  constexpr int64_t kChunk = 256;
  float e[kChunk];
  for (int64_t j0 = 0; j0 < n; j0 += kChunk) {
    const int64_t m = std::min(kChunk, n - j0);
    for (int64_t j = 0; j < m; ++j) e[j] = -x[j0 + j];
    ExpShifted(e, 0.0f, m, e);
    for (int64_t j = 0; j < m; ++j) out[j0 + j] = x[j0 + j] / (1.0f + e[j]);
  }
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
    case Activation::kGeluTanh:
      GeluTanh(x, n, out);
      return;
    case Activation::kSilu:
      Silu(x, n, out);
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
    case Activation::kGeluTanh:
      return 0.5 * x *
             (1.0 +
              std::tanh(std::sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
    case Activation::kSilu:
      return x / (1.0 + std::exp(-x));
  }
  return x;
}

void FinishBlock(int64_t rows, const OutputBlock& out) {
  if (out.act == Activation::kIdentity || out.act == Activation::kRelu) return;
  for (int64_t r = 0; r < rows; ++r) {
    float* row = out.y + r * out.ldy + out.col_begin;
    Activate(out.act, row, out.col_end - out.col_begin, row);
  }
}

}  // namespace phasor::kernels

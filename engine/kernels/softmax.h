// Numerically stable softmax over the last dimension, with an optional key mask.
//
//   out[r, j] = exp(s[r, j] - max_r) / Σ_k exp(s[r, k] - max_r),  s = x + add
//
// Masked keys (key_masked[j] true, or an additive -inf) get weight exactly 0.
// A row whose keys are all masked is all zeros, never NaN. The kernels are
// serial over the rows they are given; callers parallelise over rows.
#pragma once

#include <cstdint>

namespace phasor::kernels {

struct SoftmaxMask {
  // Added to the scores before the softmax: row r reads add + r * add_stride
  // ([n] values; stride 0 shares one row). Entries are finite or -inf. May be null.
  const float* add = nullptr;
  int64_t add_stride = 0;
  // [n]: true masks key j out of every row (PyTorch's key_padding_mask). May be null.
  const bool* key_masked = nullptr;
};

// x, out: [rows, n]. out may equal x.
void Softmax(const float* x, int64_t rows, int64_t n, float* out, const SoftmaxMask& mask = {});
// The naive twin: plain loops in double.
void SoftmaxNaive(const float* x, int64_t rows, int64_t n, float* out,
                  const SoftmaxMask& mask = {});

}  // namespace phasor::kernels

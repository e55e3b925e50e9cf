// Elementwise arithmetic on rows of floats (the residual connections).
#pragma once

#include <cstdint>

namespace phasor::kernels {

// out[j] = a[j] + b[j] for j < n. out may equal a or b.
void Add(const float* a, const float* b, int64_t n, float* out);
void AddNaive(const float* a, const float* b, int64_t n, float* out);

}  // namespace phasor::kernels

// Row kernels of the rotation that generates positional encodings.
//
// A row of paired sin/cos values is a vector of unit complex numbers; shifting
// the position rotates each one. With the row written as two arrays
//   a = (sin θ, cos θ) per pair, b = the same values with sin and cos swapped,
// and the rotation by φ written as c = (cos φ, cos φ), s = (sin φ, -sin φ),
// the rotated row is a·c + b·s, elementwise: sin(θ+φ), cos(θ+φ). The layout of
// the pairs in a row does not matter as long as a, b, c, s share it.
//
// All pointers are rows of n floats; out may not alias the inputs.
#pragma once

#include <cstdint>

namespace phasor::kernels {

// out[j] = a[j]*c[j] + b[j]*s[j]
void RotateRow(const float* a, const float* b, const float* c, const float* s, int64_t n,
               float* out);
void RotateRowNaive(const float* a, const float* b, const float* c, const float* s, int64_t n,
                    float* out);

// out[j] = x[j]*scale + a[j]*c[j] + b[j]*s[j]
void RotateRowAdd(const float* a, const float* b, const float* c, const float* s, const float* x,
                  float scale, int64_t n, float* out);
void RotateRowAddNaive(const float* a, const float* b, const float* c, const float* s,
                       const float* x, float scale, int64_t n, float* out);

// out[j] = x[j]*scale + t[j]   (x may be null: out[j] = t[j])
void ScaleAddRow(const float* x, float scale, const float* t, int64_t n, float* out);

// out[j] = x[j]*scale
void ScaleRow(const float* x, float scale, int64_t n, float* out);

// Asks the cache for a row of n floats that a gather will read soon (a token
// row a few rows ahead), so its memory latency overlaps the current row's work.
inline void PrefetchRow(const float* x, int64_t n) {
  for (int64_t k = 0; k < n; k += 16) __builtin_prefetch(x + k, 0, 3);
}

// How many rows ahead a gather prefetches.
constexpr int64_t kPrefetchRows = 4;

}  // namespace phasor::kernels

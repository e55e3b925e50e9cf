// The fully connected layer on row-major buffers, with PyTorch's weight layout.
//
//   y[rows, out] = act(x[rows, in] · Wᵀ + b),  W: [out, in] row-major (nn.Linear.weight)
//
// The output is cut into fixed tiles of kLinearRowTile x kLinearColTile values;
// each tile is one single-threaded Eigen GEMM and tiles are spread over threads
// with ParallelFor. Because the tiles do not depend on the thread count, the
// result is bit-identical for any number of threads (Eigen's own OpenMP GEMM is
// not: its blocking depends on the thread count). Measured on 2 cores for
// [512 x 512]·[512 x 2048]: 7.2 ms (~148 GFLOP/s) here against 7.8-8.1 ms for
// one Eigen GEMM on Eigen's OpenMP; about 14 ms for either on one thread.
#pragma once

#include <cstdint>

#include "engine/kernels/activations.h"

namespace phasor::kernels {

inline constexpr int64_t kLinearRowTile = 256;
inline constexpr int64_t kLinearColTile = 256;

// x: [rows, in]; w: [out, in]; b: [out] or null (no bias); y: [rows, out].
// y may not overlap x, w or b. in == 0 gives act(b) (or act(0)) in every row.
// Threads: ParallelFor over tiles (runs serially for a single tile).
void Linear(const float* x, int64_t rows, int64_t in, const float* w, const float* b, int64_t out,
            float* y, Activation act = Activation::kIdentity);

// The naive twin: plain loops, double accumulation, act in double. Serial.
void LinearNaive(const float* x, int64_t rows, int64_t in, const float* w, const float* b,
                 int64_t out, float* y, Activation act = Activation::kIdentity);

// Turns Eigen's own OpenMP parallelism off, once for the process, so that
// ParallelFor stays the one way into threads and an Eigen product never
// depends on the thread count. Every kernel that calls an Eigen product calls
// this first; it is cheap after the first call.
void PinEigenToOneThread();

}  // namespace phasor::kernels

#include "engine/kernels/linear.h"

#include <algorithm>
#include <cassert>

#include "engine/parallel.h"
#include "engine/tensor.h"

namespace phasor::kernels {
namespace {

using Stride = Eigen::OuterStride<>;
using StridedMap = Eigen::Map<MatRM, 0, Stride>;
using ConstStridedMap = Eigen::Map<const MatRM, 0, Stride>;

// One output tile: rows [r0, r0 + nr), columns [c0, c0 + nc).
void LinearTile(const float* x, int64_t in, const float* w, const float* b, int64_t out, float* y,
                Activation act, int64_t r0, int64_t nr, int64_t c0, int64_t nc) {
  StridedMap tile(y + r0 * out + c0, nr, nc, Stride(out));
  const ConstStridedMap xs(x + r0 * in, nr, in, Stride(in));  // [nr, in]
  const ConstStridedMap ws(w + c0 * in, nc, in, Stride(in));  // [nc, in]
  if (b != nullptr) {
    tile.rowwise() = ConstMapRow(b + c0, nc);
    if (in > 0) tile.noalias() += xs * ws.transpose();
  } else if (in > 0) {
    tile.noalias() = xs * ws.transpose();
  } else {
    tile.setZero();
  }
  if (act != Activation::kIdentity) {
    for (int64_t r = 0; r < nr; ++r) {
      float* row = y + (r0 + r) * out + c0;
      Activate(act, row, nc, row);
    }
  }
}

}  // namespace

void PinEigenToOneThread() {
  static const bool pinned = [] {
    Eigen::setNbThreads(1);
    return true;
  }();
  (void)pinned;
}

void Linear(const float* x, int64_t rows, int64_t in, const float* w, const float* b, int64_t out,
            float* y, Activation act) {
  assert(rows >= 0 && in >= 0 && out >= 0);
  if (rows == 0 || out == 0) return;
  assert(y != x && y != w);
  PinEigenToOneThread();
  const int64_t row_tiles = (rows + kLinearRowTile - 1) / kLinearRowTile;
  const int64_t col_tiles = (out + kLinearColTile - 1) / kLinearColTile;
  ParallelFor(row_tiles * col_tiles, 1, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t r0 = (t / col_tiles) * kLinearRowTile;
      const int64_t c0 = (t % col_tiles) * kLinearColTile;
      LinearTile(x, in, w, b, out, y, act, r0, std::min(kLinearRowTile, rows - r0), c0,
                 std::min(kLinearColTile, out - c0));
    }
  });
}

void LinearNaive(const float* x, int64_t rows, int64_t in, const float* w, const float* b,
                 int64_t out, float* y, Activation act) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t o = 0; o < out; ++o) {
      double s = b != nullptr ? b[o] : 0.0;
      for (int64_t i = 0; i < in; ++i) s += static_cast<double>(x[r * in + i]) * w[o * in + i];
      y[r * out + o] = static_cast<float>(ActivateNaive(act, s));
    }
  }
}

}  // namespace phasor::kernels

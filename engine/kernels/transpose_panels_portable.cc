// TransposePanels on the portable target, in scalar code (the reference the
// other targets are tested against).
#include <algorithm>
#include <cstdint>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels::portable {

void TransposePanels(const float* x, int64_t ldx, int64_t rows, int64_t cols, float* out) {
  constexpr int64_t kPanel = 32;
  for (int64_t p0 = 0; p0 < rows; p0 += kPanel) {
    const int64_t m = std::min(kPanel, rows - p0);
    float* panel = out + p0 * cols;  // [cols, 32]
    for (int64_t j = 0; j < m; ++j) {
      const float* row = x + (p0 + j) * ldx;  // [cols]
      for (int64_t c = 0; c < cols; ++c) panel[c * kPanel + j] = row[c];
    }
    for (int64_t c = 0; m < kPanel && c < cols; ++c) {
      std::fill(panel + c * kPanel + m, panel + (c + 1) * kPanel, 0.0f);
    }
  }
}

}  // namespace phasor::kernels::portable

#include "tools/plot.h"

#include <stb/stb_image_write.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "engine/error.h"

namespace phasor::cli {
namespace {

// Blue (-1) through white (0) to red (+1), as matplotlib's "RdBu_r" roughly.
std::array<uint8_t, 3> Diverging(float t) {
  t = std::clamp(t, -1.0f, 1.0f);
  const float blue[3] = {33, 102, 172};
  const float red[3] = {178, 24, 43};
  const float* end = t < 0 ? blue : red;
  const float w = std::fabs(t);
  std::array<uint8_t, 3> rgb;
  for (int k = 0; k < 3; ++k)
    rgb[k] = static_cast<uint8_t>(std::lround(255.0f * (1 - w) + end[k] * w));
  return rgb;
}

}  // namespace

void WriteHeatmapPng(const std::string& path, const float* values, int64_t rows, int64_t cols,
                     float vmin, float vmax, int64_t max_pixels) {
  if (rows <= 0 || cols <= 0) throw Error("nothing to draw in " + path);
  // Cell size: enlarge small inputs to ~512 px, sample large ones down.
  const auto pixels_for = [&](int64_t n) {
    if (n >= max_pixels) return max_pixels;
    const int64_t cell = std::max<int64_t>(1, 512 / n);
    return n * cell;
  };
  const int64_t height = pixels_for(rows);
  const int64_t map_width = pixels_for(cols);
  const int64_t gap = 8, bar = 16;
  const int64_t width = map_width + gap + bar;
  std::vector<uint8_t> img(static_cast<size_t>(width * height * 3), 255);
  const float mid = 0.5f * (vmin + vmax);
  const float half = std::max(0.5f * (vmax - vmin), 1e-30f);
  for (int64_t y = 0; y < height; ++y) {
    const int64_t r = y * rows / height;
    for (int64_t x = 0; x < map_width; ++x) {
      const int64_t c = x * cols / map_width;
      const auto rgb = Diverging((values[r * cols + c] - mid) / half);
      std::copy(rgb.begin(), rgb.end(), img.begin() + (y * width + x) * 3);
    }
    // The colour bar: vmax at the top, vmin at the bottom.
    const float t =
        1.0f - 2.0f * static_cast<float>(y) / static_cast<float>(std::max<int64_t>(height - 1, 1));
    const auto rgb = Diverging(t);
    for (int64_t x = map_width + gap; x < width; ++x) {
      std::copy(rgb.begin(), rgb.end(), img.begin() + (y * width + x) * 3);
    }
  }
  if (!stbi_write_png(path.c_str(), static_cast<int>(width), static_cast<int>(height), 3,
                      img.data(), static_cast<int>(width * 3))) {
    throw Error("cannot write " + path);
  }
}

}  // namespace phasor::cli

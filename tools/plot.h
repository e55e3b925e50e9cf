// Pictures a person can read, written as PNG (stb_image_write).
#pragma once

#include <cstdint>
#include <string>

namespace phasor::cli {

// A heatmap of values [rows, cols] row-major: rows top to bottom, columns left
// to right, a diverging colour map (blue at vmin, white at the midpoint, red at
// vmax) and a colour bar on the right. Cells are enlarged so the picture is at
// least a few hundred pixels across; very large inputs are sampled down to at
// most max_pixels per side. Throws Error if the file cannot be written.
void WriteHeatmapPng(const std::string& path, const float* values, int64_t rows, int64_t cols,
                     float vmin, float vmax, int64_t max_pixels = 2048);

}  // namespace phasor::cli

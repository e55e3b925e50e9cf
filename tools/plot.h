// Pictures a person can read: PNG heatmaps and line charts with titles, axes,
// ticks and legends, drawn with libgd and its built-in fonts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace phasor::cli {

struct HeatmapSpec {
  std::string title;
  std::string x_label = "dimension";
  std::string y_label = "position";
  int64_t first_row = 0;  // the label of row 0 (e.g. the first position)
  float vmin = -1.0f, vmax = 1.0f;
  int64_t max_pixels = 1024;  // larger inputs are sampled down to this many pixels a side
};

// values: [rows, cols] row-major; rows top to bottom, columns left to right, a
// diverging colour map (blue vmin, white midway, red vmax) with a colour bar.
// Throws Error if the file cannot be written.
void WriteHeatmapPng(const std::string& path, const float* values, int64_t rows, int64_t cols,
                     const HeatmapSpec& spec);

struct Series {
  std::string name;
  std::vector<double> x, y;
  bool dashed = false;  // e.g. a bound rather than a measurement
  bool markers = true;  // a dot at every point (off for long curves)
  int width = 2;        // line width in pixels
};

struct LinePlotSpec {
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;
  std::vector<Series> series;
};

// A line chart, one colour per series, points marked, legend at the right.
// Throws Error if the file cannot be written or nothing is plottable.
void WriteLinePlotPng(const std::string& path, const LinePlotSpec& spec);

}  // namespace phasor::cli

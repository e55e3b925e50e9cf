// Pictures a person can read: PNG heatmaps and line charts with titles, axes,
// ticks and legends, drawn with libgd and its built-in fonts. A picture never
// drops data silently: where a table or a curve has more values than pixels,
// each pixel shows a summary of all of them, and the picture says which.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace phasor::cli {

// Columns of a table drawn side by side as one panel: first, first + step,
// ... (count of them); ticks label them label_first, label_first + 1, ...
struct ColumnGroup {
  std::string name;  // e.g. "sin: dims 2i"
  int64_t first = 0, step = 1, count = 0;
  int64_t label_first = 0;
};

struct HeatmapSpec {
  std::string title;
  std::string caption;  // lines ('\n') under the title, e.g. which columns hold sin
  std::string x_label = "dimension";
  std::string y_label = "position";
  int64_t first_row = 0;  // the label of row 0 (e.g. the first position)
  float vmin = -1.0f, vmax = 1.0f;
  int64_t max_pixels = 1024;  // at most this many pixels a side
  // Used when the columns must be reduced: each group becomes a panel of its
  // own, so that a pixel never mixes columns of two groups (sin and cos).
  std::vector<ColumnGroup> groups;
  std::string group_x_label;  // the x label under grouped panels
};

// values: [rows, cols] row-major; rows top to bottom, columns left to right, a
// diverging colour map (blue vmin, white midway, red vmax) with a colour bar.
// A table larger than max_pixels a side is reduced: each pixel is the mean of
// the block of values it covers (within one group), as a line under the title
// (and under the caption, if any) says. Returns that note ("" if nothing was reduced).
// Throws Error if the file cannot be written.
std::string WriteHeatmapPng(const std::string& path, const float* values, int64_t rows,
                            int64_t cols, const HeatmapSpec& spec);

enum class Marker { kNone, kCircle, kSquare, kTriangle, kDiamond };

struct Series {
  std::string name;
  std::vector<double> x, y;
  bool dashed = false;              // e.g. a bound rather than a measurement
  Marker marker = Marker::kCircle;  // at every point (kNone for long curves)
  int width = 2;                    // line width in pixels
  int rgb = -1;                     // 0xRRGGBB; -1: the next colour of the palette
  int panel = 0;                    // index into LinePlotSpec::panels
};

struct LinePlotSpec {
  std::string title, x_label, y_label;
  std::string caption;  // lines ('\n') under the title: what the curves are, the y scale
  bool log_x = false, log_y = false;
  bool binary_x = false;            // x tick labels as counts with binary suffixes (1K = 1024)
  std::vector<std::string> panels;  // titles of panels side by side sharing the axes
  std::vector<Series> series;
};

// A line chart, legend at the right. A series with more points than its
// panel has pixels across is drawn as a light band from the least to the
// greatest value in each pixel column, with a thin line through their means
// (a line under the title, and under the caption if any, says so). A series
// of one point is drawn as a marker even if it has none. Returns that note ("" if none).
// Throws Error if the file cannot be written or nothing is plottable.
std::string WriteLinePlotPng(const std::string& path, const LinePlotSpec& spec);

}  // namespace phasor::cli

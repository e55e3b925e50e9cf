// WriteHeatmapPng (tools/plot.h).
#include <gdfontmb.h>
#include <gdfonts.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/error.h"
#include "tools/plot.h"
#include "tools/plot_util.h"
#include "tools/sizes.h"

namespace phasor::cli {
namespace {

using plot::Label;
using plot::Text;
using plot::TextWidth;

// Pixels for n values: small inputs enlarged to about 512 pixels, large ones
// reduced to max_pixels.
int PixelsFor(int64_t n, int64_t max_pixels) {
  if (n >= max_pixels) return static_cast<int>(max_pixels);
  return static_cast<int>(n * std::max<int64_t>(1, 512 / n));
}

// The values [k0, k1) a pixel x of w covers, of n: at least one.
std::pair<int64_t, int64_t> Block(int x, int w, int64_t n) {
  const int64_t k0 = static_cast<int64_t>(x) * n / w;
  return {k0, std::max(static_cast<int64_t>(x + 1) * n / w, k0 + 1)};
}

// Where everything goes: the panels (column groups) and their widths in
// pixels, the map's size, and the note on how values are reduced.
struct Layout {
  std::vector<ColumnGroup> groups;
  std::vector<int> panel_w;
  int gap = 0, map_w = 0, map_h = 0;
  int left = 70, top = 0;
  std::string note;
};

Layout Place(int64_t rows, int64_t cols, const HeatmapSpec& spec) {
  Layout l;
  const bool reduce_cols = cols > spec.max_pixels;
  // The panels: the groups if columns are reduced, else every column at once.
  l.groups = {ColumnGroup{"", 0, 1, cols, 0}};
  if (reduce_cols && !spec.groups.empty()) l.groups = spec.groups;
  const int n_groups = static_cast<int>(l.groups.size());
  l.gap = n_groups > 1 ? 24 : 0;
  for (const ColumnGroup& g : l.groups) {
    l.panel_w.push_back(PixelsFor(g.count, spec.max_pixels / n_groups));
    l.map_w += l.panel_w.back();
  }
  l.map_w += l.gap * (n_groups - 1);
  l.map_h = PixelsFor(rows, spec.max_pixels);
  const int64_t rows_per_pixel = (rows + l.map_h - 1) / l.map_h;
  int64_t cols_per_pixel = 1;
  for (size_t g = 0; g < l.groups.size(); ++g) {
    cols_per_pixel =
        std::max(cols_per_pixel, (l.groups[g].count + l.panel_w[g] - 1) / l.panel_w[g]);
  }
  if (rows_per_pixel > 1 || cols_per_pixel > 1) {
    l.note = "reduced: each pixel is the mean of up to ";
    if (rows_per_pixel > 1) l.note += Plural(rows_per_pixel, spec.y_label);
    if (rows_per_pixel > 1 && cols_per_pixel > 1) l.note += " x ";
    if (cols_per_pixel > 1) l.note += Plural(cols_per_pixel, spec.x_label);
    if (n_groups > 1) l.note += " of one panel";
  }
  return l;
}

// Row block by row block: the column sums of the block, then each pixel's
// mean over its columns of one group.
void DrawCells(gdImagePtr img, const Layout& l, const float* values, int64_t rows, int64_t cols,
               const HeatmapSpec& spec) {
  const float mid = 0.5f * (spec.vmin + spec.vmax);
  const float half = std::max(0.5f * (spec.vmax - spec.vmin), 1e-30f);
  std::vector<double> sums(static_cast<size_t>(cols));  // [cols]
  for (int y = 0; y < l.map_h; ++y) {
    const auto [r0, r1] = Block(y, l.map_h, rows);
    std::fill(sums.begin(), sums.end(), 0.0);
    for (int64_t r = r0; r < r1; ++r) {
      for (int64_t c = 0; c < cols; ++c) sums[c] += values[r * cols + c];
    }
    int x_panel = l.left;
    for (size_t g = 0; g < l.groups.size(); ++g) {
      const ColumnGroup& grp = l.groups[g];
      for (int x = 0; x < l.panel_w[g]; ++x) {
        const auto [k0, k1] = Block(x, l.panel_w[g], grp.count);
        double s = 0;
        for (int64_t k = k0; k < k1; ++k) s += sums[grp.first + k * grp.step];
        const double mean = s / static_cast<double>((r1 - r0) * (k1 - k0));
        gdImageSetPixel(img, x_panel + x, l.top + y,
                        plot::Diverging(img, (static_cast<float>(mean) - mid) / half));
      }
      x_panel += l.panel_w[g] + l.gap;
    }
  }
}

// Each panel: its frame, its name and its column ticks; the x label.
void DrawPanels(gdImagePtr img, const Layout& l, const HeatmapSpec& spec, int black) {
  gdFontPtr small = gdFontGetSmall();
  const int n_groups = static_cast<int>(l.groups.size());
  const int top = l.top, map_h = l.map_h;
  int x_panel = l.left;
  for (size_t g = 0; g < l.groups.size(); ++g) {
    const ColumnGroup& grp = l.groups[g];
    const int w = l.panel_w[g];
    gdImageRectangle(img, x_panel - 1, top - 1, x_panel + w, top + map_h, black);
    // Ticks at round labels (not round offsets from the first one).
    const double l0 = static_cast<double>(grp.label_first);
    for (double v :
         plot::Ticks(l0, l0 + static_cast<double>(grp.count - 1), n_groups > 1 ? 4 : 8)) {
      const int x = x_panel + static_cast<int>((v - l0 + 0.5) * w / static_cast<double>(grp.count));
      gdImageLine(img, x, top + map_h, x, top + map_h + 4, black);
      const std::string s = Label(v);
      Text(img, small, x - TextWidth(small, s) / 2, top + map_h + 6, s, black);
    }
    if (n_groups > 1) {
      Text(img, small, x_panel + w / 2 - TextWidth(small, grp.name) / 2, top + map_h + 22, grp.name,
           black);
    }
    x_panel += w + l.gap;
  }
  const std::string x_label =
      n_groups > 1 && !spec.group_x_label.empty() ? spec.group_x_label : spec.x_label;
  Text(img, small, l.left + l.map_w / 2 - TextWidth(small, x_label) / 2,
       top + map_h + (n_groups > 1 ? 38 : 24), x_label, black);
}

// The row ticks and the y label.
void DrawRows(gdImagePtr img, const Layout& l, int64_t rows, const HeatmapSpec& spec, int black) {
  gdFontPtr small = gdFontGetSmall();
  const double r0 = static_cast<double>(spec.first_row);
  for (double v : plot::Ticks(r0, r0 + static_cast<double>(rows - 1), 8)) {
    const int y = l.top + static_cast<int>((v - r0 + 0.5) * l.map_h / static_cast<double>(rows));
    gdImageLine(img, l.left - 5, y, l.left - 1, y, black);
    const std::string s = Label(v);
    Text(img, small, l.left - 8 - TextWidth(small, s), y - small->h / 2, s, black);
  }
  plot::TextUp(img, small, 6, l.top + l.map_h / 2 + TextWidth(small, spec.y_label) / 2,
               spec.y_label, black);
}

// The colour bar with its scale.
void DrawColourBar(gdImagePtr img, const Layout& l, const HeatmapSpec& spec, int black) {
  gdFontPtr small = gdFontGetSmall();
  const int bx = l.left + l.map_w + 20, bw = 16, top = l.top, map_h = l.map_h;
  for (int y = 0; y < map_h; ++y) {
    const float t =
        1.0f - 2.0f * static_cast<float>(y) / static_cast<float>(std::max(map_h - 1, 1));
    gdImageLine(img, bx, top + y, bx + bw, top + y, plot::Diverging(img, t));
  }
  gdImageRectangle(img, bx - 1, top - 1, bx + bw + 1, top + map_h, black);
  for (int k = 0; k <= 4; ++k) {
    const float v = spec.vmax - (spec.vmax - spec.vmin) * static_cast<float>(k) / 4.0f;
    const int y = top + (map_h - 1) * k / 4;
    Text(img, small, bx + bw + 5, y - small->h / 2, Label(v), black);
  }
}

}  // namespace

std::string WriteHeatmapPng(const std::string& path, const float* values, int64_t rows,
                            int64_t cols, const HeatmapSpec& spec) {
  if (rows <= 0 || cols <= 0) throw Error("nothing to draw in " + path);
  Layout l = Place(rows, cols, spec);
  const std::vector<std::string> under_title = plot::LinesUnderTitle(spec.caption, l.note);
  l.top = 36 + 16 * static_cast<int>(under_title.size());
  const int right = 90;
  const int bottom = l.groups.size() > 1 ? 64 : 50;
  const int width = l.left + l.map_w + right, height = l.top + l.map_h + bottom;
  plot::ImagePtr im = plot::NewImage(std::max(width, 560), height);
  gdImagePtr img = im.get();
  const int black = gdImageColorResolve(img, 0, 0, 0);
  DrawCells(img, l, values, rows, cols, spec);
  gdFontPtr small = gdFontGetSmall(), bold = gdFontGetMediumBold();
  Text(img, bold, l.left, 10, spec.title, black);
  for (size_t k = 0; k < under_title.size(); ++k) {
    Text(img, small, l.left, 28 + 16 * static_cast<int>(k), under_title[k], black);
  }
  DrawPanels(img, l, spec, black);
  DrawRows(img, l, rows, spec, black);
  DrawColourBar(img, l, spec, black);
  plot::Save(img, path);
  return l.note;
}

}  // namespace phasor::cli

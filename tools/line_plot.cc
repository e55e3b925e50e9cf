// WriteLinePlotPng (tools/plot.h).
#include <gdfontmb.h>
#include <gdfonts.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/error.h"
#include "tools/plot.h"
#include "tools/plot_util.h"

namespace phasor::cli {
namespace {

using plot::Text;
using plot::TextWidth;

// Tableau 10, for series without a colour of their own.
constexpr int kPalette[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                            0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};

int Resolve(gdImagePtr im, int rgb) {
  return gdImageColorResolve(im, (rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff);
}

// rgb mixed with white: a light tint for a band behind the line.
int Tint(int rgb, double w) {
  int out = 0;
  for (int shift : {16, 8, 0}) {
    const int c = (rgb >> shift) & 0xff;
    out |= static_cast<int>(std::lround(c * w + 255 * (1 - w))) << shift;
  }
  return out;
}

// Two points in pixels.
struct Segment {
  int x0, y0, x1, y1;
};

// A line, dashed (8 pixels on, 5 off) if asked, at the pen's thickness.
void Line(gdImagePtr im, const Segment& l, int color, bool dashed) {
  const auto [x0, y0, x1, y1] = l;
  if (!dashed) {
    gdImageLine(im, x0, y0, x1, y1, color);
    return;
  }
  const double len = std::hypot(x1 - x0, y1 - y0);
  for (double s = 0; s < len; s += 13) {
    const double e = std::min(s + 8, len);
    gdImageLine(im, x0 + static_cast<int>((x1 - x0) * s / len),
                y0 + static_cast<int>((y1 - y0) * s / len),
                x0 + static_cast<int>((x1 - x0) * e / len),
                y0 + static_cast<int>((y1 - y0) * e / len), color);
  }
}

void DrawMarker(gdImagePtr im, Marker m, int x, int y, int color) {
  switch (m) {
    case Marker::kNone:
      return;
    case Marker::kCircle:
      gdImageFilledEllipse(im, x, y, 8, 8, color);
      return;
    case Marker::kSquare:
      gdImageFilledRectangle(im, x - 3, y - 3, x + 3, y + 3, color);
      return;
    case Marker::kTriangle: {
      gdPoint p[3] = {{x, y - 5}, {x - 5, y + 4}, {x + 5, y + 4}};
      gdImageFilledPolygon(im, p, 3, color);
      return;
    }
    case Marker::kDiamond: {
      gdPoint p[4] = {{x, y - 5}, {x + 5, y}, {x, y + 5}, {x - 5, y}};
      gdImageFilledPolygon(im, p, 4, color);
      return;
    }
  }
}

// The axes' ranges (after log10 where the axis is logarithmic) and where
// values land in pixels.
struct Canvas {
  const LinePlotSpec& spec;
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  int n_panels = 1, plot_w = 640, gap = 70, left = 80, plot_h = 400, top = 0;

  double tx(double v) const { return spec.log_x ? std::log10(v) : v; }
  double ty(double v) const { return spec.log_y ? std::log10(v) : v; }
  int panel_left(int p) const { return left + p * (plot_w + gap); }
  int px(int p, double v) const {
    return panel_left(p) + static_cast<int>((tx(v) - x0) / (x1 - x0) * plot_w);
  }
  int py(double v) const {
    return top + plot_h - static_cast<int>((ty(v) - y0) / (y1 - y0) * plot_h);
  }
  int all_w() const { return n_panels * plot_w + (n_panels - 1) * gap; }
};

// The ranges of every finite point, y from 0 on a linear axis, padded above.
void FitRanges(Canvas& c, const std::string& path) {
  for (const Series& s : c.spec.series) {
    for (size_t k = 0; k < s.x.size() && k < s.y.size(); ++k) {
      if (!std::isfinite(c.tx(s.x[k])) || !std::isfinite(c.ty(s.y[k]))) continue;
      c.x0 = std::min(c.x0, c.tx(s.x[k]));
      c.x1 = std::max(c.x1, c.tx(s.x[k]));
      c.y0 = std::min(c.y0, c.ty(s.y[k]));
      c.y1 = std::max(c.y1, c.ty(s.y[k]));
    }
  }
  if (!(c.x1 >= c.x0) || !(c.y1 >= c.y0)) throw Error("nothing to plot in " + path);
  if (c.x1 == c.x0) c.x0 -= 1, c.x1 += 1;
  if (!c.spec.log_y) c.y0 = std::min(c.y0, 0.0);
  const double pad = 0.05 * (c.y1 - c.y0 > 0 ? c.y1 - c.y0 : 1.0);
  c.y1 += pad;
  if (c.spec.log_y) c.y0 -= pad;
}

// Grid and ticks of every panel, and its frame and name; on a log axis, ticks
// at powers of ten (or at the data's x).
void DrawGrid(gdImagePtr img, const Canvas& c, int black) {
  const LinePlotSpec& spec = c.spec;
  gdFontPtr small = gdFontGetSmall();
  const int grid = gdImageColorResolve(img, 225, 225, 225);
  std::vector<double> xt, yt;
  if (spec.log_x) {
    for (const Series& s : spec.series) xt.insert(xt.end(), s.x.begin(), s.x.end());
    std::sort(xt.begin(), xt.end());
    xt.erase(std::unique(xt.begin(), xt.end()), xt.end());
  } else {
    xt = plot::Ticks(c.x0, c.x1, c.n_panels == 1 ? 8 : 5);
  }
  if (spec.log_y) {
    for (double e = std::ceil(c.y0); e <= c.y1; e += 1) yt.push_back(std::pow(10.0, e));
  } else {
    yt = plot::Ticks(c.y0, c.y1, 6);
  }
  const int top = c.top, plot_h = c.plot_h, plot_w = c.plot_w;
  for (int p = 0; p < c.n_panels; ++p) {
    const int pl = c.panel_left(p);
    for (double v : xt) {
      const int x = c.px(p, v);
      gdImageLine(img, x, top, x, top + plot_h, grid);
      const std::string s = spec.binary_x ? plot::BinaryCount(v) : plot::Label(v);
      Text(img, small, x - TextWidth(small, s) / 2, top + plot_h + 6, s, black);
    }
    for (double v : yt) {
      const int y = c.py(v);
      gdImageLine(img, pl, y, pl + plot_w, y, grid);
      const std::string s = plot::Label(v);
      Text(img, small, pl - 6 - TextWidth(small, s), y - small->h / 2, s, black);
    }
    gdImageRectangle(img, pl, top, pl + plot_w, top + plot_h, black);
    if (p < static_cast<int>(spec.panels.size())) {
      Text(img, small, pl + plot_w / 2 - TextWidth(small, spec.panels[p]) / 2, top - 14,
           spec.panels[p], black);
    }
  }
}

// A series of more points than pixel columns: per column, a light band from
// the least to the greatest of its points (pass 0), a line through their mean
// (pass 1).
void DrawReduced(gdImagePtr img, const Canvas& c, const Series& s, int rgb, int pass) {
  const int p = std::clamp(s.panel, 0, c.n_panels - 1);
  const int plot_w = c.plot_w;
  const int color = Resolve(img, rgb);
  const size_t n = std::min(s.x.size(), s.y.size());
  std::vector<double> lo(plot_w + 1, INFINITY), hi(plot_w + 1, -INFINITY), sum(plot_w + 1, 0.0),
      count(plot_w + 1, 0.0);
  for (size_t k = 0; k < n; ++k) {
    if (!std::isfinite(s.y[k])) continue;
    const int col = std::clamp(c.px(p, s.x[k]) - c.panel_left(p), 0, plot_w);
    lo[col] = std::min(lo[col], s.y[k]);
    hi[col] = std::max(hi[col], s.y[k]);
    sum[col] += s.y[k];
    count[col] += 1;
  }
  // The mean of a curve that oscillates within a pixel column moves
  // from column to column: a thin line, so that it does not hide the band.
  gdImageSetThickness(img, 1);
  const int band = Resolve(img, Tint(rgb, 0.25));
  int last_x = -1, last_y = 0;
  for (int col = 0; col <= plot_w; ++col) {
    if (count[col] == 0) continue;
    const int x = c.panel_left(p) + col;
    if (pass == 0) {
      gdImageLine(img, x, c.py(hi[col]), x, c.py(lo[col]), band);
    } else {
      const int y = c.py(sum[col] / count[col]);
      if (last_x >= 0) Line(img, {last_x, last_y, x, y}, color, s.dashed);
      last_x = x, last_y = y;
    }
  }
}

// Series: the bands of reduced series first, then every line over them.
void DrawSeries(gdImagePtr img, const Canvas& c, const std::vector<int>& colors) {
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < c.spec.series.size(); ++i) {
      const Series& s = c.spec.series[i];
      const int p = std::clamp(s.panel, 0, c.n_panels - 1);
      const size_t n = std::min(s.x.size(), s.y.size());
      if (n > static_cast<size_t>(c.plot_w)) {
        DrawReduced(img, c, s, colors[i], pass);
        continue;
      }
      if (pass == 0) continue;
      const int color = Resolve(img, colors[i]);
      gdImageSetThickness(img, std::max(1, s.width));
      for (size_t k = 1; k < n; ++k) {
        Line(img, {c.px(p, s.x[k - 1]), c.py(s.y[k - 1]), c.px(p, s.x[k]), c.py(s.y[k])}, color,
             s.dashed);
      }
      gdImageSetThickness(img, 1);
      const Marker marker = n == 1 && s.marker == Marker::kNone ? Marker::kCircle : s.marker;
      for (size_t k = 0; k < n; ++k) DrawMarker(img, marker, c.px(p, s.x[k]), c.py(s.y[k]), color);
    }
  }
}

// The legend: a sample of each series' line and marker, and its name.
void DrawLegend(gdImagePtr img, const Canvas& c, const std::vector<int>& colors, int black) {
  gdFontPtr small = gdFontGetSmall();
  const int lx = c.left + c.all_w() + 20;
  for (size_t i = 0; i < c.spec.series.size(); ++i) {
    const Series& s = c.spec.series[i];
    const int color = Resolve(img, colors[i]);
    const int ly = c.top + 10 + static_cast<int>(i) * 18;
    gdImageSetThickness(img, std::min(std::max(1, s.width), 5));
    Line(img, {lx, ly + 6, lx + 26, ly + 6}, color, s.dashed);
    gdImageSetThickness(img, 1);
    DrawMarker(img, s.marker, lx + 13, ly + 6, color);
    Text(img, small, lx + 32, ly, s.name, black);
  }
}

}  // namespace

std::string WriteLinePlotPng(const std::string& path, const LinePlotSpec& spec) {
  Canvas c{spec};
  FitRanges(c, path);
  c.n_panels = std::max<int>(1, static_cast<int>(spec.panels.size()));
  c.plot_w = c.n_panels == 1 ? 640 : 400;
  const int legend_w = 250, bottom = 50;
  // The note on reduced series, known before drawing.
  size_t most_points = 0;
  for (const Series& s : spec.series) most_points = std::max(most_points, s.x.size());
  std::string note;
  if (most_points > static_cast<size_t>(c.plot_w)) {
    note = "each pixel column holds up to " +
           std::to_string((most_points + c.plot_w - 1) / c.plot_w) +
           " points: a light band from their least to their greatest value, a line through "
           "their mean";
  }
  const std::vector<std::string> under_title = plot::LinesUnderTitle(spec.caption, note);
  c.top = 40 + 16 * static_cast<int>(under_title.size());
  const int width = c.left + c.all_w() + 20 + legend_w;
  const int height = c.top + c.plot_h + bottom;
  plot::ImagePtr im = plot::NewImage(width, height);
  gdImagePtr img = im.get();
  const int black = gdImageColorResolve(img, 0, 0, 0);
  DrawGrid(img, c, black);
  gdFontPtr small = gdFontGetSmall(), bold = gdFontGetMediumBold();
  Text(img, bold, c.left, 8, spec.title, black);
  for (size_t k = 0; k < under_title.size(); ++k) {
    Text(img, small, c.left, 24 + 16 * static_cast<int>(k), under_title[k], black);
  }
  Text(img, small, c.left + c.all_w() / 2 - TextWidth(small, spec.x_label) / 2,
       c.top + c.plot_h + 26, spec.x_label, black);
  plot::TextUp(img, small, 8, c.top + c.plot_h / 2 + TextWidth(small, spec.y_label) / 2,
               spec.y_label, black);
  std::vector<int> colors;
  for (size_t i = 0; i < spec.series.size(); ++i) {
    colors.push_back(spec.series[i].rgb >= 0 ? spec.series[i].rgb : kPalette[i % 10]);
  }
  DrawSeries(img, c, colors);
  DrawLegend(img, c, colors, black);
  plot::Save(img, path);
  return note;
}

}  // namespace phasor::cli

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

// A line, dashed (8 pixels on, 5 off) if asked, at the pen's thickness.
void Line(gdImagePtr im, int x0, int y0, int x1, int y1, int color, bool dashed) {
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

}  // namespace

std::string WriteLinePlotPng(const std::string& path, const LinePlotSpec& spec) {
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  const auto tx = [&](double v) { return spec.log_x ? std::log10(v) : v; };
  const auto ty = [&](double v) { return spec.log_y ? std::log10(v) : v; };
  for (const Series& s : spec.series) {
    for (size_t k = 0; k < s.x.size() && k < s.y.size(); ++k) {
      if (!std::isfinite(tx(s.x[k])) || !std::isfinite(ty(s.y[k]))) continue;
      x0 = std::min(x0, tx(s.x[k]));
      x1 = std::max(x1, tx(s.x[k]));
      y0 = std::min(y0, ty(s.y[k]));
      y1 = std::max(y1, ty(s.y[k]));
    }
  }
  if (!(x1 >= x0) || !(y1 >= y0)) throw Error("nothing to plot in " + path);
  if (x1 == x0) x0 -= 1, x1 += 1;
  if (!spec.log_y) y0 = std::min(y0, 0.0);
  const double pad = 0.05 * (y1 - y0 > 0 ? y1 - y0 : 1.0);
  y1 += pad;
  if (spec.log_y) y0 -= pad;

  const int n_panels = std::max<int>(1, static_cast<int>(spec.panels.size()));
  const int plot_w = n_panels == 1 ? 640 : 400, gap = 70;
  const int left = 80, plot_h = 400, legend_w = 250, bottom = 50;
  // The note on reduced series, known before drawing.
  size_t most_points = 0;
  for (const Series& s : spec.series) most_points = std::max(most_points, s.x.size());
  std::string note;
  if (most_points > static_cast<size_t>(plot_w)) {
    note = "each pixel column holds up to " + std::to_string((most_points + plot_w - 1) / plot_w) +
           " points: a light band from their least to their greatest value, a line through "
           "their mean";
  }
  const std::vector<std::string> under_title = plot::LinesUnderTitle(spec.caption, note);
  const int top = 40 + 16 * static_cast<int>(under_title.size());
  const int width = left + n_panels * plot_w + (n_panels - 1) * gap + 20 + legend_w;
  const int height = top + plot_h + bottom;
  plot::ImagePtr im = plot::NewImage(width, height);
  gdImagePtr img = im.get();
  const int black = gdImageColorResolve(img, 0, 0, 0);
  const int grid = gdImageColorResolve(img, 225, 225, 225);
  const auto panel_left = [&](int p) { return left + p * (plot_w + gap); };
  const auto px = [&](int p, double v) {
    return panel_left(p) + static_cast<int>((tx(v) - x0) / (x1 - x0) * plot_w);
  };
  const auto py = [&](double v) {
    return top + plot_h - static_cast<int>((ty(v) - y0) / (y1 - y0) * plot_h);
  };
  gdFontPtr small = gdFontGetSmall(), bold = gdFontGetMediumBold();
  // Grid and ticks; on a log axis, ticks at powers of ten (or at the data's x).
  std::vector<double> xt, yt;
  if (spec.log_x) {
    for (const Series& s : spec.series) xt.insert(xt.end(), s.x.begin(), s.x.end());
    std::sort(xt.begin(), xt.end());
    xt.erase(std::unique(xt.begin(), xt.end()), xt.end());
  } else {
    xt = plot::Ticks(x0, x1, n_panels == 1 ? 8 : 5);
  }
  if (spec.log_y) {
    for (double e = std::ceil(y0); e <= y1; e += 1) yt.push_back(std::pow(10.0, e));
  } else {
    yt = plot::Ticks(y0, y1, 6);
  }
  for (int p = 0; p < n_panels; ++p) {
    const int pl = panel_left(p);
    for (double v : xt) {
      const int x = px(p, v);
      gdImageLine(img, x, top, x, top + plot_h, grid);
      const std::string s = spec.binary_x ? plot::BinaryCount(v) : plot::Label(v);
      Text(img, small, x - TextWidth(small, s) / 2, top + plot_h + 6, s, black);
    }
    for (double v : yt) {
      const int y = py(v);
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
  Text(img, bold, left, 8, spec.title, black);
  for (size_t k = 0; k < under_title.size(); ++k) {
    Text(img, small, left, 24 + 16 * static_cast<int>(k), under_title[k], black);
  }
  const int all_w = n_panels * plot_w + (n_panels - 1) * gap;
  Text(img, small, left + all_w / 2 - TextWidth(small, spec.x_label) / 2, top + plot_h + 26,
       spec.x_label, black);
  plot::TextUp(img, small, 8, top + plot_h / 2 + TextWidth(small, spec.y_label) / 2, spec.y_label,
               black);

  // Series: the bands of reduced series first, then every line over them.
  std::vector<int> colors;
  for (size_t i = 0; i < spec.series.size(); ++i) {
    colors.push_back(spec.series[i].rgb >= 0 ? spec.series[i].rgb : kPalette[i % 10]);
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < spec.series.size(); ++i) {
      const Series& s = spec.series[i];
      const int p = std::clamp(s.panel, 0, n_panels - 1);
      const int color = Resolve(img, colors[i]);
      const size_t n = std::min(s.x.size(), s.y.size());
      if (n > static_cast<size_t>(plot_w)) {
        // Per pixel column: least, greatest and mean of its points.
        std::vector<double> lo(plot_w + 1, INFINITY), hi(plot_w + 1, -INFINITY),
            sum(plot_w + 1, 0.0), count(plot_w + 1, 0.0);
        for (size_t k = 0; k < n; ++k) {
          if (!std::isfinite(s.y[k])) continue;
          const int c = std::clamp(px(p, s.x[k]) - panel_left(p), 0, plot_w);
          lo[c] = std::min(lo[c], s.y[k]);
          hi[c] = std::max(hi[c], s.y[k]);
          sum[c] += s.y[k];
          count[c] += 1;
        }
        // The mean of a curve that oscillates within a pixel column moves
        // from column to column: a thin line, so that it does not hide the band.
        gdImageSetThickness(img, 1);
        const int band = Resolve(img, Tint(colors[i], 0.25));
        int last_x = -1, last_y = 0;
        for (int c = 0; c <= plot_w; ++c) {
          if (count[c] == 0) continue;
          const int x = panel_left(p) + c;
          if (pass == 0) {
            gdImageLine(img, x, py(hi[c]), x, py(lo[c]), band);
          } else {
            const int y = py(sum[c] / count[c]);
            if (last_x >= 0) Line(img, last_x, last_y, x, y, color, s.dashed);
            last_x = x, last_y = y;
          }
        }
        continue;
      }
      if (pass == 0) continue;
      gdImageSetThickness(img, std::max(1, s.width));
      for (size_t k = 0; k < n; ++k) {
        if (k > 0) {
          Line(img, px(p, s.x[k - 1]), py(s.y[k - 1]), px(p, s.x[k]), py(s.y[k]), color, s.dashed);
        }
      }
      gdImageSetThickness(img, 1);
      const Marker marker = n == 1 && s.marker == Marker::kNone ? Marker::kCircle : s.marker;
      for (size_t k = 0; k < n; ++k) DrawMarker(img, marker, px(p, s.x[k]), py(s.y[k]), color);
    }
  }
  // The legend: a sample of each series' line and marker, and its name.
  const int lx = left + all_w + 20;
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const Series& s = spec.series[i];
    const int color = Resolve(img, colors[i]);
    const int ly = top + 10 + static_cast<int>(i) * 18;
    gdImageSetThickness(img, std::min(std::max(1, s.width), 5));
    Line(img, lx, ly + 6, lx + 26, ly + 6, color, s.dashed);
    gdImageSetThickness(img, 1);
    DrawMarker(img, s.marker, lx + 13, ly + 6, color);
    Text(img, small, lx + 32, ly, s.name, black);
  }
  plot::Save(img, path);
  return note;
}

}  // namespace phasor::cli

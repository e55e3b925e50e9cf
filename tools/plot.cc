#include "tools/plot.h"

#include <gd.h>
#include <gdfontmb.h>
#include <gdfonts.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "engine/error.h"

namespace phasor::cli {
namespace {

using ImagePtr = std::unique_ptr<gdImage, decltype(&gdImageDestroy)>;

// Blue through white to red (t in [-1, 1]), close to matplotlib's RdBu_r.
int Diverging(gdImagePtr im, float t) {
  t = std::clamp(t, -1.0f, 1.0f);
  const float blue[3] = {33, 102, 172}, red[3] = {178, 24, 43};
  const float* end = t < 0 ? blue : red;
  const float w = std::fabs(t);
  const auto mix = [&](int k) {
    return static_cast<int>(std::lround(255.0f * (1 - w) + end[k] * w));
  };
  return gdImageColorResolve(im, mix(0), mix(1), mix(2));
}

void Text(gdImagePtr im, gdFontPtr font, int x, int y, const std::string& s, int color) {
  gdImageString(im, font, x, y, reinterpret_cast<unsigned char*>(const_cast<char*>(s.c_str())),
                color);
}

void TextUp(gdImagePtr im, gdFontPtr font, int x, int y, const std::string& s, int color) {
  gdImageStringUp(im, font, x, y, reinterpret_cast<unsigned char*>(const_cast<char*>(s.c_str())),
                  color);
}

int TextWidth(gdFontPtr font, const std::string& s) { return font->w * static_cast<int>(s.size()); }

std::string Number(double v) {
  char buf[32];
  const double a = std::fabs(v);
  if (a != 0 && (a >= 1e6 || a < 1e-2)) {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", v);
  }
  return buf;
}

// A count with binary suffixes where exact: 1024 -> "1K", 4194304 -> "4M".
std::string Count(double v) {
  const auto n = static_cast<long long>(v);
  if (static_cast<double>(n) != v) return Number(v);
  if (n >= (1LL << 20) && n % (1LL << 20) == 0) return std::to_string(n >> 20) + "M";
  if (n >= 1024 && n % 1024 == 0) return std::to_string(n >> 10) + "K";
  return std::to_string(n);
}

// Round tick values covering [lo, hi].
std::vector<double> Ticks(double lo, double hi, int target) {
  std::vector<double> out;
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step) out.push_back(v);
  return out;
}

void Save(gdImagePtr im, const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error("cannot write " + path);
  gdImagePng(im, f);
  const bool ok = std::ferror(f) == 0;
  if (std::fclose(f) != 0 || !ok) throw Error("cannot write " + path);
}

}  // namespace

void WriteHeatmapPng(const std::string& path, const float* values, int64_t rows, int64_t cols,
                     const HeatmapSpec& spec) {
  if (rows <= 0 || cols <= 0) throw Error("nothing to draw in " + path);
  // Enlarge small inputs to about 512 pixels, sample large ones down.
  const auto pixels_for = [&](int64_t n) {
    if (n >= spec.max_pixels) return spec.max_pixels;
    return n * std::max<int64_t>(1, 512 / n);
  };
  const int map_h = static_cast<int>(pixels_for(rows));
  const int map_w = static_cast<int>(pixels_for(cols));
  const int left = 70, top = 36, right = 90, bottom = 50;
  const int width = left + map_w + right, height = top + map_h + bottom;
  ImagePtr im(gdImageCreateTrueColor(width, height), gdImageDestroy);
  const int white = gdImageColorResolve(im.get(), 255, 255, 255);
  const int black = gdImageColorResolve(im.get(), 0, 0, 0);
  gdImageFilledRectangle(im.get(), 0, 0, width - 1, height - 1, white);
  const float mid = 0.5f * (spec.vmin + spec.vmax);
  const float half = std::max(0.5f * (spec.vmax - spec.vmin), 1e-30f);
  for (int y = 0; y < map_h; ++y) {
    const int64_t r = static_cast<int64_t>(y) * rows / map_h;
    for (int x = 0; x < map_w; ++x) {
      const int64_t c = static_cast<int64_t>(x) * cols / map_w;
      gdImageSetPixel(im.get(), left + x, top + y,
                      Diverging(im.get(), (values[r * cols + c] - mid) / half));
    }
  }
  gdImageRectangle(im.get(), left - 1, top - 1, left + map_w, top + map_h, black);
  gdFontPtr small = gdFontGetSmall(), bold = gdFontGetMediumBold();
  Text(im.get(), bold, left, 10, spec.title, black);
  // Axes: columns along the bottom, rows down the left.
  for (double v : Ticks(0, static_cast<double>(cols - 1), 8)) {
    const int x = left + static_cast<int>((v + 0.5) * map_w / cols);
    gdImageLine(im.get(), x, top + map_h, x, top + map_h + 4, black);
    const std::string s = Number(v);
    Text(im.get(), small, x - TextWidth(small, s) / 2, top + map_h + 6, s, black);
  }
  Text(im.get(), small, left + map_w / 2 - TextWidth(small, spec.x_label) / 2, top + map_h + 24,
       spec.x_label, black);
  for (double v : Ticks(0, static_cast<double>(rows - 1), 8)) {
    const int y = top + static_cast<int>((v + 0.5) * map_h / rows);
    gdImageLine(im.get(), left - 5, y, left - 1, y, black);
    const std::string s = Number(v + static_cast<double>(spec.first_row));
    Text(im.get(), small, left - 8 - TextWidth(small, s), y - small->h / 2, s, black);
  }
  TextUp(im.get(), small, 6, top + map_h / 2 + TextWidth(small, spec.y_label) / 2, spec.y_label,
         black);
  // The colour bar with its scale.
  const int bx = left + map_w + 20, bw = 16;
  for (int y = 0; y < map_h; ++y) {
    const float t =
        1.0f - 2.0f * static_cast<float>(y) / static_cast<float>(std::max(map_h - 1, 1));
    gdImageLine(im.get(), bx, top + y, bx + bw, top + y, Diverging(im.get(), t));
  }
  gdImageRectangle(im.get(), bx - 1, top - 1, bx + bw + 1, top + map_h, black);
  for (int k = 0; k <= 4; ++k) {
    const float v = spec.vmax - (spec.vmax - spec.vmin) * static_cast<float>(k) / 4.0f;
    const int y = top + (map_h - 1) * k / 4;
    Text(im.get(), small, bx + bw + 5, y - small->h / 2, Number(v), black);
  }
  Save(im.get(), path);
}

void WriteLinePlotPng(const std::string& path, const LinePlotSpec& spec) {
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

  const int left = 80, top = 40, plot_w = 640, plot_h = 400, legend_w = 260, bottom = 50;
  const int width = left + plot_w + 20 + legend_w, height = top + plot_h + bottom;
  ImagePtr im(gdImageCreateTrueColor(width, height), gdImageDestroy);
  const int white = gdImageColorResolve(im.get(), 255, 255, 255);
  const int black = gdImageColorResolve(im.get(), 0, 0, 0);
  const int grid = gdImageColorResolve(im.get(), 225, 225, 225);
  gdImageFilledRectangle(im.get(), 0, 0, width - 1, height - 1, white);
  const auto px = [&](double v) {
    return left + static_cast<int>((tx(v) - x0) / (x1 - x0) * plot_w);
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
    xt = Ticks(x0, x1, 8);
  }
  if (spec.log_y) {
    for (double e = std::ceil(y0); e <= y1; e += 1) yt.push_back(std::pow(10.0, e));
  } else {
    yt = Ticks(y0, y1, 6);
  }
  for (double v : xt) {
    const int x = px(v);
    gdImageLine(im.get(), x, top, x, top + plot_h, grid);
    const std::string s = spec.log_x ? Count(v) : Number(v);
    Text(im.get(), small, x - TextWidth(small, s) / 2, top + plot_h + 6, s, black);
  }
  for (double v : yt) {
    const int y = py(v);
    gdImageLine(im.get(), left, y, left + plot_w, y, grid);
    const std::string s = Number(v);
    Text(im.get(), small, left - 6 - TextWidth(small, s), y - small->h / 2, s, black);
  }
  gdImageRectangle(im.get(), left, top, left + plot_w, top + plot_h, black);
  Text(im.get(), bold, left, 12, spec.title, black);
  Text(im.get(), small, left + plot_w / 2 - TextWidth(small, spec.x_label) / 2, top + plot_h + 26,
       spec.x_label, black);
  TextUp(im.get(), small, 8, top + plot_h / 2 + TextWidth(small, spec.y_label) / 2, spec.y_label,
         black);
  // Series: a colour each (Tableau 10), dashed bounds, point markers, legend.
  static const int kPalette[][3] = {
      {31, 119, 180}, {255, 127, 14},  {44, 160, 44},   {214, 39, 40},  {148, 103, 189},
      {140, 86, 75},  {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207}};
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const Series& s = spec.series[i];
    gdImageSetThickness(im.get(), std::max(1, s.width));
    const int* rgb = kPalette[i % 10];
    const int color = gdImageColorResolve(im.get(), rgb[0], rgb[1], rgb[2]);
    int style[8];
    for (int k = 0; k < 8; ++k) style[k] = k < 5 ? color : gdTransparent;
    gdImageSetStyle(im.get(), style, 8);
    const int pen = s.dashed ? gdStyled : color;
    for (size_t k = 0; k < s.x.size() && k < s.y.size(); ++k) {
      if (k > 0) gdImageLine(im.get(), px(s.x[k - 1]), py(s.y[k - 1]), px(s.x[k]), py(s.y[k]), pen);
      if (s.markers) gdImageFilledEllipse(im.get(), px(s.x[k]), py(s.y[k]), 7, 7, color);
    }
    const int ly = top + 10 + static_cast<int>(i) * 18;
    const int lx = left + plot_w + 20;
    gdImageLine(im.get(), lx, ly + 6, lx + 24, ly + 6, pen);
    Text(im.get(), small, lx + 30, ly, s.name, black);
  }
  Save(im.get(), path);
}

}  // namespace phasor::cli

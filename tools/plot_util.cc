#include "tools/plot_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/error.h"
#include "engine/output_file.h"

namespace phasor::cli::plot {

ImagePtr NewImage(int width, int height) {
  ImagePtr im(gdImageCreateTrueColor(width, height), gdImageDestroy);
  if (!im)
    throw Error("cannot allocate a picture of " + std::to_string(width) + " x " +
                std::to_string(height) + " pixels");
  gdImageFilledRectangle(im.get(), 0, 0, width - 1, height - 1,
                         gdImageColorResolve(im.get(), 255, 255, 255));
  return im;
}

int Diverging(gdImagePtr im, float t) {
  t = std::isnan(t) ? 0.0f : std::clamp(t, -1.0f, 1.0f);
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

std::vector<double> Ticks(double lo, double hi, int target) {
  if (!(hi > lo)) return {lo};
  // Counts of a thousand and more are ticked in K, M, ... (powers of 1024), so
  // that every label is exact: 0, 20K, 40K rather than 0, 20000, 40000 drawn
  // as 19.53K, 39.06K.
  double unit = 1;
  for (int p = 0; p < 4 && (hi - lo) >= 1024 * unit; ++p) unit *= 1024;
  const double raw = (hi - lo) / unit / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  step *= unit;
  std::vector<double> out;
  // Multiples of step by integer count, so that no rounding error builds up.
  for (double n = std::ceil(lo / step - 1e-9); n * step <= hi + 1e-9 * step; n += 1) {
    const double v = n * step;
    out.push_back(std::fabs(v) < 1e-9 * step ? 0.0 : v);
  }
  return out;
}

std::string Label(double v) {
  if (v == 0 || !std::isfinite(v)) return v == 0 ? "0" : std::to_string(v);
  const double a = std::fabs(v);
  char buf[32];
  if (a >= 1024) {
    // A suffix where it is exact (1.5K = 1536, 4M), else every digit: a
    // label never rounds a count (1048586 is not 1M).
    static const char* kSuffix[] = {"K", "M", "G", "T"};
    for (int p = 3; p >= 0; --p) {
      const double unit = std::pow(1024.0, p + 1);
      if (a < unit) continue;
      std::snprintf(buf, sizeof buf, "%.3f", v / unit);
      if (std::strtod(buf, nullptr) * unit != v) break;
      std::string s = buf;
      s.erase(s.find_last_not_of('0') + 1);
      if (s.back() == '.') s.pop_back();
      return s + kSuffix[p];
    }
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  if (a < 1e-3) {
    // Small values keep a plain decimal form too: 0.0001.
    std::snprintf(buf, sizeof buf, "%.12f", v);
    std::string s = buf;
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
    return s == "-0" ? "0" : s;
  }
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string BinaryCount(double v) {
  const auto n = static_cast<long long>(v);
  if (static_cast<double>(n) != v) return Label(v);
  if (n >= (1LL << 20) && n % (1LL << 20) == 0) return std::to_string(n >> 20) + "M";
  if (n >= 1024 && n % 1024 == 0) return std::to_string(n >> 10) + "K";
  return std::to_string(n);
}

void Save(gdImagePtr im, const std::string& path) {
  int size = 0;
  void* png = gdImagePngPtr(im, &size);
  if (png == nullptr) throw Error("cannot write " + path + ": the PNG could not be encoded");
  try {
    OutputFile out(path);
    out.Write(png, static_cast<size_t>(size));
    out.Commit();
  } catch (...) {
    gdFree(png);
    throw;
  }
  gdFree(png);
}

std::vector<std::string> LinesUnderTitle(const std::string& caption, const std::string& note) {
  std::vector<std::string> lines;
  for (size_t a = 0; a < caption.size();) {
    const size_t b = std::min(caption.find('\n', a), caption.size());
    lines.push_back(caption.substr(a, b - a));
    a = b + 1;
  }
  if (!note.empty()) lines.push_back(note);
  return lines;
}

}  // namespace phasor::cli::plot

// What the heatmap and the line chart share: text, colours, ticks at round
// numbers with their labels in one notation, and saving a PNG.
#pragma once

#include <gd.h>

#include <memory>
#include <string>
#include <vector>

namespace phasor::cli::plot {

using ImagePtr = std::unique_ptr<gdImage, decltype(&gdImageDestroy)>;

// A white true-colour image.
ImagePtr NewImage(int width, int height);

// Blue through white to red (t in [-1, 1]), close to matplotlib's RdBu_r.
int Diverging(gdImagePtr im, float t);

void Text(gdImagePtr im, gdFontPtr font, int x, int y, const std::string& s, int color);
void TextUp(gdImagePtr im, gdFontPtr font, int x, int y, const std::string& s, int color);
int TextWidth(gdFontPtr font, const std::string& s);

// Round tick values (1, 2 or 5 times a power of ten) covering [lo, hi],
// about target of them; a tick within rounding of 0 is exactly 0.
std::vector<double> Ticks(double lo, double hi, int target);

// A tick label in one notation for every axis: SI suffixes from a thousand
// up (1.5K, 20K, 1M, with K = 1000), up to four significant digits below;
// never "-0" or an exponent.
std::string Label(double v);

// A count with binary suffixes where exact, as --lengths takes it:
// 1024 -> "1K", 4194304 -> "4M".
std::string BinaryCount(double v);

// Writes the image; Error with the system's reason if the file cannot be written.
void Save(gdImagePtr im, const std::string& path);

}  // namespace phasor::cli::plot

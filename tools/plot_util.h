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

// Round tick values (1, 2 or 5 times a power of ten, times a power of 1024
// where the range spans 1024 or more) covering [lo, hi], about target of
// them; a tick within rounding of 0 is exactly 0. Ticks(0, 99999, 5):
// 0, 20K, 40K, 60K, 80K (K = 1024), each labelled exactly by Label.
std::vector<double> Ticks(double lo, double hi, int target);

// A tick label in one notation for every axis, with phasor's one meaning of
// K, M, G, T (powers of 1024, as sizes are typed): from 1024 up a suffix
// where it is exact (1536 -> "1.5K", 4194304 -> "4M"), else every digit
// (1048586); up to four significant digits below; never "-0" or an exponent.
std::string Label(double v);

// A count with binary suffixes where exact, as --lengths takes it:
// 1024 -> "1K", 4194304 -> "4M".
std::string BinaryCount(double v);

// Writes the image; Error with the system's reason if the file cannot be written.
void Save(gdImagePtr im, const std::string& path);

// The lines drawn under a chart's title: each line of caption ('\n'), then the
// note if it is not empty.
std::vector<std::string> LinesUnderTitle(const std::string& caption, const std::string& note);

}  // namespace phasor::cli::plot

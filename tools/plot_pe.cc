// The pictures of phasor pe (tools/plot_pe.h).
#include "tools/plot_pe.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "commands/option_checks.h"
#include "tools/cli_util.h"
#include "tools/plot.h"

namespace phasor::cli {

void WriteSimilarity(const std::string& path, const std::string& title, const SimilarityCurves& c) {
  const std::vector<int64_t>& starts = c.starts;
  const std::vector<std::vector<double>>& y = c.y;
  LinePlotSpec spec;
  spec.x_label = "distance k (second position - first position)";
  spec.y_label = c.y_label;
  double spread = 0, peak = 0;
  for (size_t s = 0; s < starts.size(); ++s) {
    for (size_t k = 0; k < y[s].size(); ++k) {
      spread = std::max(spread, std::fabs(y[s][k] - y[0][k]));
      peak = std::max(peak, std::fabs(y[s][k]));
    }
  }
  const bool coincide = spread <= 1e-3 * peak;
  std::string ps;
  for (size_t s = 0; s < starts.size(); ++s) {
    ps += (s == 0 ? "" : s + 1 == starts.size() ? " and " : ", ") + std::to_string(starts[s]);
  }
  for (size_t s = 0; s < (coincide ? 1 : starts.size()); ++s) {
    Series series;
    series.name = coincide && starts.size() > 1 ? "every p (they coincide)"
                                                : "p = " + std::to_string(starts[s]);
    series.marker = Marker::kNone;
    series.width = 1;
    for (size_t k = 0; k < y[s].size(); ++k) {
      series.x.push_back(static_cast<double>(k));
      series.y.push_back(y[s][k]);
    }
    spec.series.push_back(std::move(series));
  }
  if (starts.size() == 1) {
    spec.title = title + "; first position p = " + ps;
  } else if (coincide) {
    spec.title = title + "; the " + std::to_string(starts.size()) +
                 " curves coincide (largest difference " + FormatNumber(spread) + ")";
  } else {
    spec.title = title + "; curves differ by up to " + FormatNumber(spread);
  }
  spec.caption = "y: " + c.what + "; " + FormatNumber(y[0][0]) +
                 " at k = 0\none curve per first position p = " + ps;
  const std::string note = WriteLinePlotPng(path, spec);
  ReportWrote(path, c.y_label + " against distance k for " + std::to_string(starts.size()) +
                        " first positions (" +
                        (coincide && starts.size() > 1 ? "they coincide, " : "") +
                        "largest difference " + FormatNumber(spread) + ")" +
                        (note.empty() ? "" : "; " + note));
}

void WriteHeatmap(const std::string& path, const PeJob& job, const std::vector<float>& table,
                  int64_t start, int64_t length) {
  const int64_t width = job.width();
  HeatmapSpec spec;
  spec.title = job.title();
  spec.first_row = start;
  const float amplitude = static_cast<float>(job.amplitude());
  spec.vmin = -amplitude;
  spec.vmax = amplitude;
  const bool paired = job.paired();
  const std::string first = job.first_of_pair(), second = job.second_of_pair();
  const int64_t h = width / 2;
  const std::string second_dims = std::to_string(h) + ".." + std::to_string(width - 1);
  if (paired) {
    spec.groups = {{first + ": dims 2i", 0, 2, h, 0}, {second + ": dims 2i+1", 1, 2, h, 0}};
    spec.group_x_label = "pair i";
  } else {
    spec.groups = {{first + ": dims 0.." + std::to_string(h - 1), 0, 1, h, 0},
                   {second + ": dims " + second_dims, h, 1, h, h}};
  }
  spec.caption = paired ? first + " in even dims (2i), " + second + " in odd dims (2i+1)"
                        : first + " in dims 0.." + std::to_string(h - 1) + ", " + second +
                              " in dims " + second_dims;
  const std::string note = WriteHeatmapPng(path, table.data(), length, width, spec);
  ReportWrote(path, "positions " + job.Range() + " top to bottom, dimensions 0.." +
                        std::to_string(width - 1) + " left to right; blue -" +
                        FormatNumber(amplitude) + ", white 0, red +" + FormatNumber(amplitude) +
                        (paired ? "; " + first + " in even dims, " + second + " in odd dims"
                                : "; " + first + " in dims 0.." + std::to_string(h - 1) + ", " +
                                      second + " in " + second_dims) +
                        (note.empty() ? "" : "; " + note));
}

}  // namespace phasor::cli

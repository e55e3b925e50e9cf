// phasor pe: the positional-encoding table for positions start..start+length-1
// (sinusoidal PE, or the RoPE cos/sin table), and --similarity: a picture of
// how the encodings of two positions relate, against their distance
// (models/commands/pe_job.h computes; this file draws and prints).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "models/commands/option_checks.h"
#include "models/commands/pe_job.h"
#include "tools/cli_util.h"
#include "tools/commands.h"
#include "tools/plot.h"
#include "tools/sizes.h"

namespace phasor::cli {
namespace {

struct PeArgs {
  PeRequest request;
  // The options whose presence matters (PeRequest::given), by name.
  std::vector<const CLI::Option*> watched;
};

// One curve per first position p against the distance k. Curves that differ
// by less than a pixel (1/1000 of the peak) would hide one another: they are
// drawn as one, and the title says they coincide and by how much at most;
// otherwise each is drawn thin in a colour of its own. The caption says what
// the y values are and their scale.
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

// The table as a heatmap: positions down, dimensions across, the two halves
// of each pair apart where columns must be reduced.
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

void RunPe(PeArgs& a) {
  PeRequest& r = a.request;
  for (const CLI::Option* opt : a.watched) {
    if (opt->count() > 0) r.given.push_back(opt->get_name());
  }
  const PeJob job(r);
  if (!r.output.empty() || r.similarity.empty()) {
    const std::vector<float> table = job.Table();
    JobEvents events;
    events.wrote = ReportWrote;
    if (r.output.empty()) {
      job.WriteCsv([](const std::string& line) { std::cout << line; }, table.data());
    } else if (job.format() == ".png") {
      WriteHeatmap(r.output, job, table, r.start, r.length);
    } else {
      job.WriteTable(table.data(), events);
    }
  }
  if (!r.similarity.empty()) WriteSimilarity(r.similarity, job.title(), job.Similarity());
}

}  // namespace

void AddPeCommand(CLI::App& app) {
  auto args = std::make_shared<PeArgs>();
  PeRequest& r = args->request;
  CLI::App* cmd = app.add_subcommand(
      "pe",
      "Write the positional-encoding table (sinusoidal PE or RoPE cos/sin) for a range of "
      "positions, or a picture of its similarity against distance");
  cmd->add_option("--kind", r.kind,
                  "sinusoidal (PE rows of d_model) or rope (rows of rotary_dim: the rotation "
                  "of (1, 0) in every pair, cos then sin at the pair's two dims)")
      ->capture_default_str();
  AddSizeOption(cmd, "--d-model", &r.d_model, "Model width (even); for --kind rope the head dim")
      ->required()
      ->default_str("");
  AddSizeOption(cmd, "--length", &r.length,
                "Number of positions (--similarity: distances), e.g. 64, 100K")
      ->required()
      ->default_str("");
  AddSizeOption(cmd, "--start", &r.start, "First position");
  cmd->add_option("--base", r.base, "Frequency base")->capture_default_str();
  cmd->add_option("--layout", r.layout,
                  "sinusoidal: interleaved (default; sin, cos per pair) or split (sins, then "
                  "cosines); rope: half (default; pairs (i, i+r/2)) or interleaved "
                  "(pairs (2i, 2i+1))");
  // Options whose presence matters (PeRequest::given): --denominator and those of rope.
  const auto watch = [&](CLI::Option* o) {
    args->watched.push_back(o);
    return o;
  };
  watch(cmd->add_option("--denominator", r.denominator,
                        "sinusoidal only: d_model (default; base^(-2i/d_model)) or half_minus_one "
                        "(base^(-i/(d_model/2-1)))"));
  cmd->add_option("--mode", r.mode, "cached, on_the_fly or auto")->capture_default_str();
  cmd->add_option("--output", r.output,
                  "FILE.npy (float32 [length, width]), FILE.csv, or FILE.png (heatmap); "
                  "default: CSV on stdout (unless --similarity)");
  cmd->add_option("--similarity", r.similarity,
                  "FILE.png: PE(p)·PE(p+k) (sinusoidal) or the RoPE score of q at p and k at "
                  "p+k against k, for several first positions p, to see that it depends on k "
                  "alone");
  // The default shown in --help is the one used: a value, or what it is
  // computed from.
  watch(AddSizeOption(cmd, "--rotary-dim", &r.rotary_dim,
                      "rope: rotated dims r (even; 0: the head dim)"));
  AddSizeOption(cmd, "--max-len", &r.max_len,
                "Rows of the cached table (--mode cached: it must hold every position asked "
                "for; auto: positions past it are computed on the fly); rope: the default of L0");
  watch(cmd->add_option("--scaling", r.scaling, "rope: none, linear, ntk, dynamic, yarn or llama3")
            ->capture_default_str());
  watch(cmd->add_option("--factor", r.factor, "rope scaling: factor s (required with a scaling)"));
  watch(AddSizeOption(cmd, "--original-max-len", &r.original_max_len,
                      "rope scaling dynamic, yarn, llama3: L0 (default: --max-len)")
            ->default_str(""));
  watch(cmd->add_option("--beta-fast", r.beta_fast, "rope scaling yarn")->capture_default_str());
  watch(cmd->add_option("--beta-slow", r.beta_slow, "rope scaling yarn")->capture_default_str());
  watch(cmd->add_option("--attention-factor", r.attention_factor,
                        "rope scaling yarn (default: 0.1 ln s + 1)"));
  watch(cmd->add_option("--low-freq-factor", r.low_freq_factor, "rope scaling llama3")
            ->capture_default_str());
  watch(cmd->add_option("--high-freq-factor", r.high_freq_factor, "rope scaling llama3")
            ->capture_default_str());
  cmd->callback([args] { RunPe(*args); });
}

}  // namespace phasor::cli

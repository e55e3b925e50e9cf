// phasor pe: the positional-encoding table for positions start..start+length-1.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/npy.h"
#include "layers/sinusoidal.h"
#include "tools/commands.h"
#include "tools/plot.h"

namespace phasor::cli {
namespace {

// A table larger than this many values is refused rather than allocated.
constexpr int64_t kMaxValues = int64_t{1} << 30;

struct PeArgs {
  int64_t d_model = 0;
  int64_t length = 0;
  int64_t start = 0;
  double base = 10000.0;
  std::string layout = "interleaved";
  std::string denominator = "d_model";
  std::string mode = "on_the_fly";
  std::string output;
};

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void WriteCsv(std::ostream& out, const float* pe, int64_t start, int64_t n, int64_t d) {
  out << "position";
  for (int64_t k = 0; k < d; ++k) out << "," << k;
  out << "\n";
  char buf[32];
  for (int64_t j = 0; j < n; ++j) {
    out << start + j;
    for (int64_t k = 0; k < d; ++k) {
      std::snprintf(buf, sizeof buf, ",%.9g", static_cast<double>(pe[j * d + k]));
      out << buf;
    }
    out << "\n";
  }
}

void RunPe(const PeArgs& a) {
  if (a.length <= 0) throw UsageError("--length must be positive, got " + std::to_string(a.length));
  if (a.start < 0) throw UsageError("--start must be >= 0, got " + std::to_string(a.start));
  if (a.d_model <= 0 || a.d_model % 2 != 0) {
    throw UsageError("--d-model must be even and positive, got " + std::to_string(a.d_model));
  }
  if (a.length > kMaxValues / a.d_model) {
    throw UsageError("--length " + std::to_string(a.length) + " x --d-model " +
                     std::to_string(a.d_model) + " is too large for one table (limit 2^30 values)");
  }
  SinusoidalOptions o;
  std::unique_ptr<SinusoidalEncoding> pe;
  try {
    o.d_model = a.d_model;
    o.base = a.base;
    o.layout = ParsePeLayout(a.layout);
    o.denominator = ParsePeDenominator(a.denominator);
    o.mode = ParsePeMode(a.mode);
    // A table mode keeps exactly the rows asked for.
    o.max_len = o.mode == PeMode::kOnTheFly ? 0 : a.start + a.length;
    if (o.max_len > kMaxValues / a.d_model) {
      throw UsageError("--start + --length is too large for a cached table; use --mode on_the_fly");
    }
    pe = std::make_unique<SinusoidalEncoding>(o);
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  std::vector<float> table(static_cast<size_t>(a.length * a.d_model));  // [length, d_model]
  pe->Fill(a.start, a.length, table.data());

  if (a.output.empty()) {
    WriteCsv(std::cout, table.data(), a.start, a.length, a.d_model);
  } else if (EndsWith(a.output, ".npy")) {
    WriteNpy(a.output, {a.length, a.d_model}, table.data());
  } else if (EndsWith(a.output, ".csv")) {
    std::ofstream out(a.output);
    if (!out) throw Error("cannot write " + a.output);
    WriteCsv(out, table.data(), a.start, a.length, a.d_model);
    if (!out) throw Error("cannot write " + a.output);
  } else if (EndsWith(a.output, ".png")) {
    HeatmapSpec spec;
    spec.title = "Sinusoidal PE, d_model " + std::to_string(a.d_model) + ", base " +
                 std::to_string(static_cast<long long>(a.base)) + ", " + a.layout + ", " +
                 a.denominator;
    spec.first_row = a.start;
    WriteHeatmapPng(a.output, table.data(), a.length, a.d_model, spec);
    std::cerr << "phasor: wrote " << a.output << ": positions " << a.start << ".."
              << a.start + a.length - 1 << " top to bottom, dimensions 0.." << a.d_model - 1
              << " left to right; blue -1, white 0, red +1\n";
  } else {
    throw UsageError("--output must end in .npy, .csv or .png, got '" + a.output + "'");
  }
}

}  // namespace

void AddPeCommand(CLI::App& app) {
  auto args = std::make_shared<PeArgs>();
  CLI::App* cmd =
      app.add_subcommand("pe", "Write the sinusoidal PE table for a range of positions");
  cmd->add_option("--d-model", args->d_model, "Model width (even)")->required();
  cmd->add_option("--length", args->length, "Number of positions")->required();
  cmd->add_option("--start", args->start, "First position")->capture_default_str();
  cmd->add_option("--base", args->base, "Frequency base")->capture_default_str();
  cmd->add_option("--layout", args->layout,
                  "interleaved (sin, cos per pair) or split (sins, then cosines)")
      ->capture_default_str();
  cmd->add_option("--denominator", args->denominator,
                  "d_model: base^(-2i/d_model); half_minus_one: base^(-i/(d_model/2-1))")
      ->capture_default_str();
  cmd->add_option("--mode", args->mode, "cached, on_the_fly or auto")->capture_default_str();
  cmd->add_option("--output", args->output,
                  "FILE.npy (float32 [length, d_model]), FILE.csv, or FILE.png (heatmap); "
                  "default: CSV on stdout");
  cmd->callback([args] { RunPe(*args); });
}

}  // namespace phasor::cli

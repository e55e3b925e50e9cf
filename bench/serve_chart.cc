// phasor_serve_chart: bench/serve.sh's results.tsv as a picture. Two panels
// against the number of concurrent clients (log x): the p50 and p99 latency of
// a request (ms), and the server's real tokens per second, beside the CLI's
// batch rate and the c=1 latency target when given. The panels share their
// log y axis (ms on the left, tokens/s on the right).
//
//   phasor_serve_chart --in results.tsv --out serve_latency.png
//       [--caption "MiniLM shape, 2 threads, CPU ..."] [--cli-tokens-per-s X] [--target-ms Y]
//
// results.tsv: a header line of tab-separated column names, then one row a
// level; the columns read are concurrency, p50_ms, p99_ms and tokens_per_s.
// Errors: "phasor_serve_chart: error: ..." on stderr, exit 1 (2: bad usage).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/error.h"
#include "tools/plot.h"

namespace {

using phasor::Error;
using phasor::cli::LinePlotSpec;
using phasor::cli::Marker;
using phasor::cli::Series;

// The columns of a TSV file by name: column name -> its values, row by row.
std::map<std::string, std::vector<double>> ReadTsv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + path);
  auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, '\t');) cells.push_back(cell);
    return cells;
  };
  std::string line;
  if (!std::getline(in, line)) throw Error(path + ": empty, no header line");
  const std::vector<std::string> names = split(line);
  std::map<std::string, std::vector<double>> columns;
  for (int row = 2; std::getline(in, line); ++row) {
    if (line.empty()) continue;
    const std::vector<std::string> cells = split(line);
    if (cells.size() != names.size()) {
      throw Error(path + ":" + std::to_string(row) + ": " + std::to_string(cells.size()) +
                  " cells, the header names " + std::to_string(names.size()));
    }
    for (size_t i = 0; i < cells.size(); ++i) {
      char* end = nullptr;
      const double v = std::strtod(cells[i].c_str(), &end);
      // A cell that is not a number (a note, "nan") is a gap in its curve.
      columns[names[i]].push_back(end != cells[i].c_str() && *end == '\0' ? v : NAN);
    }
  }
  return columns;
}

const std::vector<double>& Column(const std::map<std::string, std::vector<double>>& columns,
                                  const std::string& name, const std::string& path) {
  const auto it = columns.find(name);
  if (it == columns.end()) throw Error(path + ": no column " + name + " (or no row)");
  return it->second;
}

Series MakeSeries(const std::string& name, std::vector<double> x, std::vector<double> y, int panel,
                  int rgb, Marker marker) {
  Series s;
  s.name = name;
  s.x = std::move(x);
  s.y = std::move(y);
  s.panel = panel;
  s.rgb = rgb;
  s.marker = marker;
  return s;
}

std::string Fixed(double v, int digits) {
  std::ostringstream ss;
  ss.setf(std::ios::fixed);
  ss.precision(digits);
  ss << v;
  return ss.str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench/serve.sh's results.tsv as a PNG: latency and tokens/s against concurrency"};
  std::string in, out, caption;
  double cli_tokens_per_s = 0, target_ms = 0;
  app.add_option("--in", in, "results.tsv of bench/serve.sh")->required();
  app.add_option("--out", out, "The PNG to write")->required();
  app.add_option("--caption", caption, "Lines ('\\n') under the title: model, threads, CPU");
  app.add_option("--cli-tokens-per-s", cli_tokens_per_s,
                 "phasor encode's real tokens/s on the same sentences (a dashed line)");
  app.add_option("--target-ms", target_ms, "The p50 latency target at concurrency 1 (a marker)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    const auto columns = ReadTsv(in);
    const std::vector<double>& c = Column(columns, "concurrency", in);
    LinePlotSpec spec;
    spec.title = "phasor serve: POST /embed, one sentence a request";
    spec.caption = caption;
    spec.x_label = "concurrent clients (wrk connections)";
    spec.y_label = "ms (left panel), real tokens/s (right panel); log scale";
    spec.log_x = true;
    spec.log_y = true;
    spec.panels = {"latency of a request (ms)", "throughput (real tokens/s)"};
    spec.series.push_back(MakeSeries("p50 latency (ms)", c, Column(columns, "p50_ms", in), 0,
                                     0x2166ac, Marker::kCircle));
    spec.series.push_back(MakeSeries("p99 latency (ms)", c, Column(columns, "p99_ms", in), 0,
                                     0xd95f02, Marker::kSquare));
    if (target_ms > 0) {
      spec.series.push_back(MakeSeries("c=1 p50 target " + Fixed(target_ms, 1) + " ms", {1.0},
                                       {target_ms}, 0, 0x404040, Marker::kDiamond));
    }
    spec.series.push_back(MakeSeries("server real tokens/s", c, Column(columns, "tokens_per_s", in),
                                     1, 0x1b9e77, Marker::kTriangle));
    if (cli_tokens_per_s > 0 && !c.empty()) {
      Series cli =
          MakeSeries("phasor encode tokens/s (batch)",
                     {*std::min_element(c.begin(), c.end()), *std::max_element(c.begin(), c.end())},
                     {cli_tokens_per_s, cli_tokens_per_s}, 1, 0x404040, Marker::kNone);
      cli.dashed = true;
      spec.series.push_back(std::move(cli));
    }
    phasor::cli::WriteLinePlotPng(out, spec);
  } catch (const std::exception& e) {
    std::cerr << "phasor_serve_chart: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

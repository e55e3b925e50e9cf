// phasor bench-pe: cached versus recomputed PE, side by side in one run, with
// the memory bounds each is measured against (commands/bench_pe_job.h
// measures; this file prints and draws).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands/bench_pe_job.h"
#include "engine/cpu.h"
#include "engine/parallel.h"
#include "tools/cli_util.h"
#include "tools/commands.h"
#include "tools/plot.h"
#include "tools/progress.h"
#include "tools/sizes.h"

namespace phasor::cli {
namespace {

using Row = BenchPeRow;

struct BenchArgs {
  BenchPeRequest request;
  bool json = false;
};

// Throughput against length: a panel per group sharing the axes; the bounds
// dashed in dark grey, each mode in a hue and with a marker of its own, the
// same in every panel, so that lines that lie on one another stay apart.
void WriteChart(const std::string& path, const std::vector<Row>& rows, int64_t d, int64_t heads) {
  LinePlotSpec spec;
  const bool rope = !rows.empty() && rows.front().group == "rope";
  spec.title =
      (rope ? "RoPE throughput, d_model " + std::to_string(d) + ", " + Plural(heads, "head")
            : "PE throughput, d_model " + std::to_string(d)) +
      ", " + Plural(NumThreads(), "thread") + "; dashed: the bound measured in the same run";
  spec.x_label = "sequence length (tokens; K = 1024, M = 1024^2)";
  spec.y_label = rope ? "GB/s of q and k, read and written" : "GB/s written";
  spec.log_x = true;
  spec.binary_x = true;
  spec.panels =
      rope ? std::vector<std::string>{"rope: q and k rotated"}
           : std::vector<std::string>{"pe: the PE rows alone", "embedding+pe: token rows plus PE"};
  struct Style {
    const char* mode;
    Marker marker;
    int rgb;
  };
  static const Style kStyles[] = {
      {"stream_write", Marker::kNone, 0x404040},  {"read_write", Marker::kNone, 0x404040},
      {"gather", Marker::kNone, 0x404040},        {"cached", Marker::kCircle, 0x2166ac},
      {"on_the_fly", Marker::kSquare, 0xd95f02},  {"direct", Marker::kTriangle, 0x1b9e77},
      {"table_build", Marker::kDiamond, 0x7570b3}};
  double lo = INFINITY, hi = 0;
  for (int panel = 0; panel < static_cast<int>(spec.panels.size()); ++panel) {
    const std::string group = rope ? "rope" : panel == 0 ? "pe" : "embedding+pe";
    for (const Style& st : kStyles) {
      Series s;
      s.panel = panel;
      s.rgb = st.rgb;
      s.marker = st.marker;
      s.dashed = st.marker == Marker::kNone;
      s.name = group + " " + st.mode +
               (s.dashed                                ? " (bound)"
                : std::string(st.mode) == "table_build" ? " (cached table made)"
                                                        : "");
      for (const Row& r : rows) {
        if (r.group == group && r.mode == st.mode && r.note.empty() && r.gb_per_s > 0) {
          s.x.push_back(static_cast<double>(r.length));
          s.y.push_back(r.gb_per_s);
          lo = std::min(lo, r.gb_per_s);
          hi = std::max(hi, r.gb_per_s);
        }
      }
      if (!s.x.empty()) spec.series.push_back(std::move(s));
    }
  }
  // On a linear axis a rate 100 times below the fastest sits on zero.
  spec.log_y = hi >= 100 * lo;
  const std::string what = spec.y_label;
  if (spec.log_y) spec.y_label += " (log scale)";
  WriteLinePlotPng(path, spec);
  ReportWrote(path, what + " against sequence length" + (spec.log_y ? " (log scale), " : ", ") +
                        (rope ? "rope" : "pe and embedding+pe side by side") + ", " +
                        std::to_string(spec.series.size()) + " series");
}

void PrintJson(const BenchPeRequest& a, const std::vector<Row>& rows) {
  nlohmann::json j = {{"kind", a.kind}, {"d_model", a.d_model}, {"threads", NumThreads()}};
  if (a.kind == "rope") {
    j["heads"] = a.heads;
  } else {
    j["vocab"] = a.vocab;
  }
  j["isa"] = IsaName(ActiveIsa());
  for (const Row& r : rows) {
    nlohmann::json e = {{"group", r.group}, {"mode", r.mode}, {"length", r.length}};
    if (r.note.empty()) {
      e.update({{"seconds", r.seconds},
                {"tokens_per_s", r.tokens_per_s},
                {"gb_per_s", r.gb_per_s},
                {"fraction_of_bound", r.of_bound}});
    } else {
      e["skipped"] = r.note;
    }
    j["rows"].push_back(e);
  }
  std::cout << j.dump(1) << "\n";
}

void PrintText(const BenchPeRequest& a, const std::vector<Row>& rows) {
  const long long d = static_cast<long long>(a.d_model);
  if (a.kind == "rope") {
    std::printf(
        "phasor bench-pe --kind rope: d_model %lld, %lld heads, %s; medians; bound: "
        "read_write (q and k read and written once); GB/s: of q and k, both ways\n",
        d, static_cast<long long>(a.heads), Plural(NumThreads(), "thread").c_str());
  } else {
    std::printf(
        "phasor bench-pe: d_model %lld, %s; medians; bounds: stream_write (PE alone, and "
        "table_build: a cached table made, median of %d), gather (embedding + PE)\n",
        d, Plural(NumThreads(), "thread").c_str(), kBenchTableBuilds);
  }
  std::printf("%-13s %-13s %9s %12s %8s %9s\n", "group", "mode", "length", "tokens/s", "GB/s",
              "of bound");
  for (const Row& r : rows) {
    if (!r.note.empty()) {
      std::printf("%-13s %-13s %9lld   %s\n", r.group.c_str(), r.mode.c_str(),
                  static_cast<long long>(r.length), r.note.c_str());
      continue;
    }
    std::printf("%-13s %-13s %9lld %12s %8.2f %8.2fx\n", r.group.c_str(), r.mode.c_str(),
                static_cast<long long>(r.length), FormatSi(r.tokens_per_s).c_str(), r.gb_per_s,
                r.of_bound);
  }
}

void RunBenchPe(const BenchArgs& args) {
  const BenchPeRequest& a = args.request;
  // A bar on a terminal: the defaults measure for minutes before printing.
  Progress progress(static_cast<int64_t>(CheckBenchPeRequest(a).size()), "lengths", !args.json);
  JobEvents events;
  events.progress = [&](int64_t done, const std::string& note) { progress.Update(done, note); };
  const std::vector<Row> rows = RunBenchPeJob(a, events);
  progress.Finish();
  if (args.json) {
    PrintJson(a, rows);
  } else {
    PrintText(a, rows);
  }
  if (!a.png.empty()) WriteChart(a.png, rows, a.d_model, a.heads);
}

}  // namespace

void AddBenchPeCommand(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  BenchPeRequest& r = args->request;
  CLI::App* cmd = app.add_subcommand(
      "bench-pe",
      "Cached versus recomputed PE (and embedding + PE, or RoPE) throughput, side by side");
  AddSizeOption(cmd, "--d-model", &r.d_model, "Model width (even)");
  cmd->add_option("--lengths", r.lengths,
                  "Sequence lengths separated by commas (K = 1024, M = 1024²), e.g. \"4K, 64K\"; "
                  "the defaults take about 5 minutes on 2 cores and up to 4 GB of memory")
      ->capture_default_str();
  AddSizeOption(cmd, "--threads", &r.threads,
                "Threads (0: OMP_NUM_THREADS if set, else all cores)");
  AddSizeOption(cmd, "--vocab", &r.vocab, "Vocabulary of the token table");
  cmd->add_option("--max-table-gib", r.max_table_gib,
                  "Skip cached mode where its table would exceed this")
      ->capture_default_str();
  cmd->add_option("--min-seconds", r.min_seconds, "Least time spent per measurement")
      ->capture_default_str();
  cmd->add_option("--kind", r.kind,
                  "sinusoidal: PE rows, alone and added to token rows; rope: q and k rotated")
      ->capture_default_str();
  AddSizeOption(cmd, "--heads", &r.heads, "--kind rope: attention heads (head dim = d / heads)");
  cmd->add_flag("--json", args->json, "Print JSON instead of a table");
  cmd->add_option("--png", r.png, "FILE.png: a chart of throughput against length");
  cmd->callback([args] { RunBenchPe(*args); });
}

}  // namespace phasor::cli

// phasor bench-pe: cached versus recomputed PE, side by side in one run, with
// the memory bounds each is measured against.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "engine/cpu.h"
#include "engine/kernels/rotate_rows.h"
#include "engine/parallel.h"
#include "layers/embedding.h"
#include "layers/rope.h"
#include "layers/sinusoidal.h"
#include "models/random_sequence.h"
#include "tools/cli_util.h"
#include "tools/commands.h"
#include "tools/plot.h"
#include "tools/sizes.h"

namespace phasor::cli {
namespace {

// The output buffer holds at most this many bytes; longer runs are written in
// pieces of that size, so memory stays bounded (the bytes written are the same).
constexpr int64_t kMaxPieceBytes = int64_t{2} << 30;

// How many times a cached table is built to time its build.
constexpr int kTableBuilds = 5;

struct BenchArgs {
  std::string kind = "sinusoidal";
  int64_t d_model = 512;
  int64_t heads = 8;
  std::string lengths = "1K,16K,256K,1M,4M";
  int64_t threads = 0;
  int64_t vocab = 32000;
  double max_table_gib = 4.0;
  double min_seconds = 0.2;
  bool json = false;
  std::string png;
};

struct Row {
  std::string group;  // "pe", "embedding+pe" or "rope"
  std::string mode;   // stream_write, gather, read_write (the bounds); cached,
                      // on_the_fly, direct, table_build
  int64_t length = 0;
  double seconds = 0;  // median for the whole length
  double tokens_per_s = 0;
  double gb_per_s = 0;
  double of_bound = 0;  // fraction of the group's bound
  std::string note;     // why a row was skipped
};

// Median seconds of one call of each fn, measured in rounds that time every
// fn in turn, so that a change in the machine's load falls on all of them
// alike rather than on whichever happened to run then. A sample is a run of
// back-to-back calls of about 20 ms, or min_seconds / 5 if less (a short call
// repeats, its data staying in cache as it would in a loop). At least 5 rounds, and enough for each
// fn to run min_seconds in all (at most 100 rounds).
std::vector<double> TimeInRounds(const std::vector<std::function<void()>>& fns,
                                 double min_seconds) {
  std::vector<int> calls;  // per sample
  for (const auto& fn : fns) {
    fn();  // warm-up: page in the buffers, start the threads
    const double t0 = Now();
    fn();
    const double once = std::max(Now() - t0, 1e-7);
    const double sample = std::min(0.02, min_seconds / 5);
    calls.push_back(static_cast<int>(std::clamp(sample / once, 1.0, 10000.0)));
  }
  std::vector<std::vector<double>> samples(fns.size());
  std::vector<double> spent(fns.size(), 0.0);
  const auto enough = [&] {
    return std::all_of(spent.begin(), spent.end(), [&](double t) { return t >= min_seconds; });
  };
  for (int round = 0; round < 100 && (round < 5 || !enough()); ++round) {
    for (size_t k = 0; k < fns.size(); ++k) {
      const double t0 = Now();
      for (int c = 0; c < calls[k]; ++c) fns[k]();
      const double t = Now() - t0;
      samples[k].push_back(t / calls[k]);
      spent[k] += t;
    }
  }
  std::vector<double> medians;
  for (auto& v : samples) medians.push_back(Median(v));
  return medians;
}

// Why a cached row is skipped: "skipped: table 4.5 GiB > --max-table-gib 4",
// three significant digits (a table of 0.0003 GiB is not "0.0 GiB").
std::string SkipNote(double table_gib, double max_table_gib) {
  char note[128];
  std::snprintf(note, sizeof note, "skipped: table %.3g GiB > --max-table-gib %.3g", table_gib,
                max_table_gib);
  return note;
}

// Median seconds of fn over the whole length: enough calls for min_seconds.
double TimeIt(const std::function<void()>& fn, double min_seconds) {
  fn();  // warm-up: page in the buffers, start the threads
  std::vector<double> samples;
  const double start = Now();
  while (samples.size() < 3 || (Now() - start < min_seconds && samples.size() < 50)) {
    const double t0 = Now();
    fn();
    samples.push_back(Now() - t0);
  }
  return Median(samples);
}

// Throughput against length: a panel per group, each in one hue (its bound
// dashed, then cached, on_the_fly and direct from dark to light, each with a
// marker of its own), sharing the axes.
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
    int first_rgb, second_rgb;  // the first panel's blues, the second's oranges; -1: not there
  };
  static const Style kStyles[] = {{"stream_write", Marker::kNone, 0x08306b, -1},
                                  {"read_write", Marker::kNone, 0x08306b, -1},
                                  {"gather", Marker::kNone, -1, 0x7f2704},
                                  {"cached", Marker::kCircle, 0x2171b5, 0xd94801},
                                  {"on_the_fly", Marker::kSquare, 0x4292c6, 0xf16913},
                                  {"direct", Marker::kTriangle, 0x9ecae1, 0xfdae6b},
                                  {"table_build", Marker::kDiamond, 0x41ab5d, -1}};
  double lo = INFINITY, hi = 0;
  for (int panel = 0; panel < static_cast<int>(spec.panels.size()); ++panel) {
    const std::string group = rope ? "rope" : panel == 0 ? "pe" : "embedding+pe";
    for (const Style& st : kStyles) {
      const int rgb = panel == 0 ? st.first_rgb : st.second_rgb;
      if (rgb < 0) continue;
      Series s;
      s.panel = panel;
      s.rgb = rgb;
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

// Median seconds of building a cached table of len rows (kTableBuilds builds).
double TableBuildSeconds(const std::function<void()>& build) {
  std::vector<double> samples;
  for (int k = 0; k < kTableBuilds; ++k) {
    const double t0 = Now();
    build();
    samples.push_back(Now() - t0);
  }
  return Median(samples);
}

// The rows of one length for sinusoidal PE: PE alone and embedding + PE, each
// cached, on the fly and direct, with their bounds and the table's build.
void SinusoidalRows(const BenchArgs& a, int64_t len, const Weights& w,
                    const std::vector<int32_t>& ids, AlignedFloats& out, std::vector<Row>& rows) {
  const int64_t d = a.d_model;
  const int64_t piece = std::min(len, kMaxPieceBytes / (4 * d));
  const double bytes = static_cast<double>(len) * static_cast<double>(d) * 4.0;
  // Runs fn(first_token, n) over the whole length, piece by piece.
  const auto over = [&](const std::function<void(int64_t, int64_t)>& fn) {
    return [&, fn] {
      for (int64_t j = 0; j < len; j += piece) fn(j, std::min(piece, len - j));
    };
  };
  const auto add = [&](const std::string& group, const std::string& mode, double s) {
    rows.push_back(Row{group, mode, len, s, static_cast<double>(len) / s, bytes / s / 1e9, 0, ""});
  };
  SinusoidalOptions fly_opt;
  fly_opt.d_model = d;
  fly_opt.mode = PeMode::kOnTheFly;
  const SinusoidalEncoding fly(fly_opt);
  const Embedding emb_fly(w, {a.vocab, d, false, 0}, &fly);
  const Embedding emb_none(w, {a.vocab, d, false, 0}, nullptr);

  // Bounds: a plain write of the same bytes; the bare gather. Each is the
  // faster of ordinary and streaming stores, so a kernel that streams its
  // output is measured against a bound that may stream too.
  const auto fill_with = [&](kernels::Stores stores) {
    return over([&, stores](int64_t, int64_t n) {
      RotationRows::ForEachTask(1, 0, n, d, [&](int64_t, int64_t j0, int64_t j1) {
        kernels::FillRow(1.0f, (j1 - j0) * d, out.data() + j0 * d, stores);
        if (stores == kernels::Stores::kStreaming) kernels::StreamFence();
      });
    });
  };
  // The gather of Embedding without PE, with the stores it does not choose.
  const kernels::Stores gather_stores = kernels::StoresFor(piece * d * 4);
  const kernels::Stores other_stores = gather_stores == kernels::Stores::kCached
                                           ? kernels::Stores::kStreaming
                                           : kernels::Stores::kCached;
  const float* weight = w.Get("embedding.weight").data.data();
  const auto gather_other = over([&](int64_t, int64_t n) {
    RotationRows::ForEachTask(1, 0, n, d, [&](int64_t, int64_t j0, int64_t j1) {
      for (int64_t r = j0; r < j1; ++r) {
        kernels::ScaleRow(weight + static_cast<int64_t>(ids[r]) * d, 1.0f, d, out.data() + r * d,
                          {other_stores, kernels::AheadRows(weight, ids.data(), r, j1, d)});
      }
      if (other_stores == kernels::Stores::kStreaming) kernels::StreamFence();
    });
  });
  // The cached table holds every position of the length.
  SinusoidalOptions cached_opt = fly_opt;
  cached_opt.mode = PeMode::kCached;
  cached_opt.max_len = len;
  std::unique_ptr<SinusoidalEncoding> cached;
  std::unique_ptr<Embedding> emb_cached;
  const double table_gib = bytes / kGiB;
  double build_seconds = 0;
  if (table_gib <= a.max_table_gib) {
    build_seconds = TableBuildSeconds([&] {
      cached.reset();
      cached = std::make_unique<SinusoidalEncoding>(cached_opt);
    });
    emb_cached =
        std::make_unique<Embedding>(w, EmbeddingOptions{a.vocab, d, false, 0}, cached.get());
  }
  // Every case but direct, timed in the same rounds. Each bound has two
  // variants (ordinary and streaming stores) and is the faster of them.
  std::vector<std::function<void()>> fns = {
      fill_with(kernels::Stores::kCached),
      fill_with(kernels::Stores::kStreaming),
      over([&](int64_t j, int64_t n) { emb_none.ForwardRange(ids.data(), n, j, out.data()); }),
      gather_other,
      over([&](int64_t j, int64_t n) { fly.Fill(j, n, out.data()); }),
      over([&](int64_t j, int64_t n) { emb_fly.ForwardRange(ids.data(), n, j, out.data()); }),
  };
  if (cached) {
    fns.push_back(over([&](int64_t j, int64_t n) { cached->Fill(j, n, out.data()); }));
    fns.push_back(over(
        [&](int64_t j, int64_t n) { emb_cached->ForwardRange(ids.data(), n, j, out.data()); }));
  }
  const std::vector<double> t = TimeInRounds(fns, a.min_seconds);
  add("pe", "stream_write", std::min(t[0], t[1]));
  add("embedding+pe", "gather", std::min(t[2], t[3]));
  if (cached) {
    add("pe", "cached", t[6]);
    add("embedding+pe", "cached", t[7]);
    add("pe", "table_build", build_seconds);
  } else {
    const std::string note = SkipNote(table_gib, a.max_table_gib);
    for (const char* group : {"pe", "embedding+pe"}) {
      rows.push_back(Row{group, "cached", len, 0, 0, 0, 0, note});
    }
    rows.push_back(Row{"pe", "table_build", len, 0, 0, 0, 0, note});
  }
  add("pe", "on_the_fly", t[4]);
  add("embedding+pe", "on_the_fly", t[5]);
  add("pe", "direct",
      TimeIt(over([&](int64_t j, int64_t n) { fly.FillDirect(j, n, nullptr, out.data()); }),
             a.min_seconds));
  add("embedding+pe", "direct",
      TimeIt(over([&](int64_t j, int64_t n) {
               const RowSource src{weight, ids.data(), 1.0f};
               fly.FillDirect(j, n, &src, out.data());
             }),
             a.min_seconds));
}

// The rows of one length for RoPE: rotating q and k of every head of a
// [len, 3·d_model] in-projection output, from the cached cos/sin table and
// on the fly, against one read and one write of q and k.
void RopeRows(const BenchArgs& a, int64_t len, AlignedFloats& qkv, std::vector<Row>& rows) {
  const int64_t d = a.d_model;
  const int64_t row = 3 * d;  // q | k | v
  const int64_t piece = std::min(len, kMaxPieceBytes / (4 * row));
  // Bytes read and written: q and k of every token, once each way.
  const double bytes = static_cast<double>(len) * static_cast<double>(2 * d) * 4.0 * 2.0;
  const auto over = [&](const std::function<void(int64_t, int64_t)>& fn) {
    return [&, fn] {
      for (int64_t j = 0; j < len; j += piece) fn(j, std::min(piece, len - j));
    };
  };
  const auto add = [&](const std::string& mode, double s) {
    rows.push_back(Row{"rope", mode, len, s, static_cast<double>(len) / s, bytes / s / 1e9, 0, ""});
  };
  RopeOptions fly_opt;
  fly_opt.d_head = d / a.heads;
  fly_opt.mode = PeMode::kOnTheFly;
  const Rope fly(fly_opt);
  RopeOptions cached_opt = fly_opt;
  cached_opt.mode = PeMode::kCached;
  cached_opt.max_len = len;
  std::unique_ptr<Rope> cached;
  const double table_gib =
      static_cast<double>(len) * static_cast<double>(fly_opt.d_head) * 4.0 / kGiB;
  if (table_gib <= a.max_table_gib) cached = std::make_unique<Rope>(cached_opt);
  // The bound: q and k of every token read and written back (times 1), in
  // the same split of rows as the rotation.
  const auto read_write = over([&](int64_t, int64_t n) {
    RotationRows::ForEachTask(1, 0, n, fly_opt.d_head, [&](int64_t, int64_t j0, int64_t j1) {
      for (int64_t r = j0; r < j1; ++r) {
        float* qk = qkv.data() + r * row;
        kernels::ScaleRow(qk, 1.0f, 2 * d, qk);
      }
    });
  });
  std::vector<std::function<void()>> fns = {
      read_write,
      over([&](int64_t j, int64_t n) { fly.ApplyAt(qkv.data(), 1, n, j, d, a.heads); }),
  };
  if (cached) {
    fns.push_back(
        over([&](int64_t j, int64_t n) { cached->ApplyAt(qkv.data(), 1, n, j, d, a.heads); }));
  }
  const std::vector<double> t = TimeInRounds(fns, a.min_seconds);
  add("read_write", t[0]);
  if (cached) {
    add("cached", t[2]);
  } else {
    const std::string note = SkipNote(table_gib, a.max_table_gib);
    rows.push_back(Row{"rope", "cached", len, 0, 0, 0, 0, note});
  }
  add("on_the_fly", t[1]);
}

void RunBenchPe(const BenchArgs& a) {
  if (a.kind != "sinusoidal" && a.kind != "rope") {
    throw UsageError("--kind must be sinusoidal or rope, got '" + a.kind + "'");
  }
  const bool rope = a.kind == "rope";
  CheckRange("--d-model", a.d_model, 2, 65536);
  if (a.d_model % 2) throw UsageError("--d-model must be even, got " + std::to_string(a.d_model));
  CheckRange("--heads", a.heads, 1, a.d_model);
  if (rope && (a.d_model % a.heads != 0 || (a.d_model / a.heads) % 2 != 0)) {
    throw UsageError("--kind rope: --d-model " + std::to_string(a.d_model) + " / --heads " +
                     std::to_string(a.heads) + " must be an even head dim");
  }
  CheckRange("--threads", a.threads, 0, 1024);
  CheckRange("--vocab", a.vocab, 1, int64_t{1} << 31);
  if (a.vocab * a.d_model > kGiB) throw UsageError("--vocab × --d-model is over 2^30 floats");
  const std::vector<int64_t> lengths = ParseSizeList("--lengths", a.lengths);
  for (size_t k = 0; k < lengths.size(); ++k) {
    CheckRange("--lengths", lengths[k], 1, int64_t{1} << 34);
    // A length twice would be measured twice and drawn as a vertical line.
    if (std::find(lengths.begin(), lengths.begin() + k, lengths[k]) != lengths.begin() + k) {
      throw UsageError("--lengths: " + std::to_string(lengths[k]) + " is given twice in '" +
                       a.lengths + "'");
    }
  }
  if (!(a.min_seconds > 0 && a.min_seconds <= 3600)) {
    throw UsageError("--min-seconds must be greater than 0 and at most 3600, got " +
                     FormatNumber(a.min_seconds));
  }
  if (!(a.max_table_gib > 0)) {
    throw UsageError("--max-table-gib must be greater than 0, got " +
                     FormatNumber(a.max_table_gib));
  }
  if (!a.png.empty()) {
    OutputFormat("--png", a.png, {".png"});
    CheckWritable(a.png);
  }
  SetNumThreads(static_cast<int>(a.threads));
  const int64_t d = a.d_model;
  const int64_t longest = *std::max_element(lengths.begin(), lengths.end());

  std::vector<Row> rows;
  if (rope) {
    // [piece, 3·d_model] q | k | v, random values.
    const int64_t piece = std::min(longest, kMaxPieceBytes / (4 * 3 * d));
    AlignedFloats qkv(static_cast<size_t>(piece * 3 * d));
    FillRandomTokenTable(piece, 3 * d, qkv.data());
    for (const int64_t len : lengths) RopeRows(a, len, qkv, rows);
  } else {
    // Token table [vocab, d_model] and token ids [piece] (a fixed pseudo-random sequence).
    AlignedFloats table(static_cast<size_t>(a.vocab * d));
    FillRandomTokenTable(a.vocab, d, table.data());
    Weights w("bench");
    w.AddAligned("embedding.weight", {a.vocab, d}, std::move(table));
    const int64_t piece = std::min(longest, kMaxPieceBytes / (4 * d));
    std::vector<int32_t> ids(static_cast<size_t>(piece));
    for (int64_t j = 0; j < piece; ++j) ids[j] = RandomTokenId(j, a.vocab);
    AlignedFloats out(static_cast<size_t>(piece * d));  // [piece, d_model]
    for (const int64_t len : lengths) SinusoidalRows(a, len, w, ids, out, rows);
  }
  // Fractions of the bound measured for the same length in the same run.
  for (Row& r : rows) {
    const std::string bound = r.group == "pe"     ? "stream_write"
                              : r.group == "rope" ? "read_write"
                                                  : "gather";
    for (const Row& b : rows) {
      if (b.length == r.length && b.group == r.group && b.mode == bound && r.seconds > 0) {
        r.of_bound = b.seconds / r.seconds;
      }
    }
  }

  if (a.json) {
    nlohmann::json j = {{"kind", a.kind}, {"d_model", d}, {"threads", NumThreads()}};
    if (rope) {
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
  } else {
    if (rope) {
      std::printf(
          "phasor bench-pe --kind rope: d_model %lld, %lld heads, %s; medians; bound: "
          "read_write (q and k read and written once); GB/s: of q and k, both ways\n",
          static_cast<long long>(d), static_cast<long long>(a.heads),
          Plural(NumThreads(), "thread").c_str());
    } else {
      std::printf(
          "phasor bench-pe: d_model %lld, %s; medians; bounds: stream_write (PE alone, and "
          "table_build: a cached table made, median of %d), gather (embedding + PE)\n",
          static_cast<long long>(d), Plural(NumThreads(), "thread").c_str(), kTableBuilds);
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
  if (!a.png.empty()) WriteChart(a.png, rows, d, a.heads);
}

}  // namespace

void AddBenchPeCommand(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "bench-pe",
      "Cached versus recomputed PE (and embedding + PE, or RoPE) throughput, side by side");
  AddSizeOption(cmd, "--d-model", &args->d_model, "Model width (even)");
  cmd->add_option("--lengths", args->lengths,
                  "Sequence lengths separated by commas (K = 1024, M = 1024²), e.g. \"4K, 64K\"")
      ->capture_default_str();
  AddSizeOption(cmd, "--threads", &args->threads, "Threads (0: all cores)");
  AddSizeOption(cmd, "--vocab", &args->vocab, "Vocabulary of the token table");
  cmd->add_option("--max-table-gib", args->max_table_gib,
                  "Skip cached mode where its table would exceed this")
      ->capture_default_str();
  cmd->add_option("--min-seconds", args->min_seconds, "Least time spent per measurement")
      ->capture_default_str();
  cmd->add_option("--kind", args->kind,
                  "sinusoidal: PE rows, alone and added to token rows; rope: q and k rotated")
      ->capture_default_str();
  AddSizeOption(cmd, "--heads", &args->heads,
                "--kind rope: attention heads (head dim = d / heads)");
  cmd->add_flag("--json", args->json, "Print JSON instead of a table");
  cmd->add_option("--png", args->png, "FILE.png: a chart of throughput against length");
  cmd->callback([args] { RunBenchPe(*args); });
}

}  // namespace phasor::cli

#include "commands/bench_pe_job.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>

#include "commands/option_checks.h"
#include "commands/sizes.h"
#include "commands/timing.h"
#include "engine/aligned_allocator.h"
#include "engine/kernels/rotate_rows.h"
#include "engine/parallel.h"
#include "engine/weights.h"
#include "layers/embedding.h"
#include "layers/rope.h"
#include "layers/sinusoidal.h"
#include "models/random_sequence.h"

namespace phasor {
namespace {

using Row = BenchPeRow;
using BenchArgs = BenchPeRequest;

// The output buffer holds at most this many bytes; longer runs are written in
// pieces of that size, so memory stays bounded (the bytes written are the same).
constexpr int64_t kMaxPieceBytes = int64_t{2} << 30;
constexpr int kTableBuilds = kBenchTableBuilds;

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

// Runs fn(first_token, n) over tokens 0 .. len-1, piece by piece.
std::function<void()> Over(int64_t len, int64_t piece, std::function<void(int64_t, int64_t)> fn) {
  return [len, piece, fn = std::move(fn)] {
    for (int64_t j = 0; j < len; j += piece) fn(j, std::min(piece, len - j));
  };
}

// What the sinusoidal cases of one length share: the token table and ids, the
// output buffer, the pieces the length is cut into.
struct SinusoidalCase {
  const BenchArgs& a;
  int64_t len, piece, d;
  const float* weight;  // [vocab, d_model]
  const std::vector<int32_t>& ids;
  AlignedFloats& out;

  // A plain write of the bytes, with the stores given.
  std::function<void()> Fill(kernels::Stores stores) const {
    return Over(len, piece, [this, stores](int64_t, int64_t n) {
      RotationRows::ForEachTask(1, 0, n, d, [&](int64_t, int64_t j0, int64_t j1) {
        kernels::FillRow(1.0f, (j1 - j0) * d, out.data() + j0 * d, stores);
        if (stores == kernels::Stores::kStreaming) kernels::StreamFence();
      });
    });
  }
  // The gather of Embedding without PE, with the stores given.
  std::function<void()> Gather(kernels::Stores stores) const {
    return Over(len, piece, [this, stores](int64_t, int64_t n) {
      RotationRows::ForEachTask(1, 0, n, d, [&](int64_t, int64_t j0, int64_t j1) {
        for (int64_t r = j0; r < j1; ++r) {
          kernels::ScaleRow(weight + static_cast<int64_t>(ids[r]) * d, 1.0f, d, out.data() + r * d,
                            {stores, kernels::AheadRows(weight, ids.data(), r, j1, d)});
        }
        if (stores == kernels::Stores::kStreaming) kernels::StreamFence();
      });
    });
  }
};

// The cached table of every position of the length and its embedding, unless
// the table is over --max-table-gib; *build_seconds: the table's build.
std::unique_ptr<SinusoidalEncoding> CachedTable(const SinusoidalCase& c, double* build_seconds) {
  SinusoidalOptions o;
  o.d_model = c.d;
  o.mode = PeMode::kCached;
  o.max_len = c.len;
  std::unique_ptr<SinusoidalEncoding> cached;
  const double table_gib = static_cast<double>(c.len) * static_cast<double>(c.d) * 4.0 / kGiB;
  if (table_gib > c.a.max_table_gib) return cached;
  *build_seconds = TableBuildSeconds([&] {
    cached.reset();
    cached = std::make_unique<SinusoidalEncoding>(o);
  });
  return cached;
}

// The rows of one length for sinusoidal PE: PE alone and embedding + PE, each
// cached, on the fly and direct, with their bounds and the table's build.
void SinusoidalRows(const BenchArgs& a, int64_t len, const Weights& w,
                    const std::vector<int32_t>& ids, AlignedFloats& out, std::vector<Row>& rows) {
  const int64_t d = a.d_model;
  const SinusoidalCase c{
      a,   len, std::min(len, kMaxPieceBytes / (4 * d)), d, w.Get("embedding.weight").data.data(),
      ids, out};
  const double bytes = static_cast<double>(len) * static_cast<double>(d) * 4.0;
  const auto over = [&](std::function<void(int64_t, int64_t)> fn) {
    return Over(len, c.piece, std::move(fn));
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
  double build_seconds = 0;
  const std::unique_ptr<SinusoidalEncoding> cached = CachedTable(c, &build_seconds);
  std::unique_ptr<Embedding> emb_cached;
  if (cached) {
    emb_cached =
        std::make_unique<Embedding>(w, EmbeddingOptions{a.vocab, d, false, 0}, cached.get());
  }
  // Every case but direct, timed in the same rounds. Each bound has two
  // variants (ordinary and streaming stores) and is the faster of them: a
  // kernel that streams its output is measured against a bound that may
  // stream too. The gather's other variant has the stores Embedding does not
  // choose.
  const kernels::Stores gather_stores = kernels::StoresFor(c.piece * d * 4);
  const kernels::Stores other_stores = gather_stores == kernels::Stores::kCached
                                           ? kernels::Stores::kStreaming
                                           : kernels::Stores::kCached;
  std::vector<std::function<void()>> fns = {
      c.Fill(kernels::Stores::kCached),
      c.Fill(kernels::Stores::kStreaming),
      over([&](int64_t j, int64_t n) { emb_none.ForwardRange(ids.data(), n, j, out.data()); }),
      c.Gather(other_stores),
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
    const std::string note = SkipNote(bytes / kGiB, a.max_table_gib);
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
               const RowSource src{c.weight, ids.data(), 1.0f};
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

// Every length for RoPE: q | k | v rows [piece, 3·d_model] of random values.
void AllRopeRows(const BenchArgs& a, const std::vector<int64_t>& lengths, int64_t longest,
                 const JobEvents& events, std::vector<Row>& rows) {
  const int64_t d = a.d_model;
  const int64_t piece = std::min(longest, kMaxPieceBytes / (4 * 3 * d));
  AlignedFloats qkv(static_cast<size_t>(piece * 3 * d));
  FillRandomTokenTable(piece, 3 * d, qkv.data());
  for (size_t k = 0; k < lengths.size(); ++k) {
    RopeRows(a, lengths[k], qkv, rows);
    events.Progress(static_cast<int64_t>(k) + 1, "length " + std::to_string(lengths[k]));
  }
}

// Every length for sinusoidal PE: a token table [vocab, d_model] and token
// ids [piece] (a fixed pseudo-random sequence).
void AllSinusoidalRows(const BenchArgs& a, const std::vector<int64_t>& lengths, int64_t longest,
                       const JobEvents& events, std::vector<Row>& rows) {
  const int64_t d = a.d_model;
  AlignedFloats table(static_cast<size_t>(a.vocab * d));
  FillRandomTokenTable(a.vocab, d, table.data());
  Weights w("bench");
  w.AddAligned("embedding.weight", {a.vocab, d}, std::move(table));
  const int64_t piece = std::min(longest, kMaxPieceBytes / (4 * d));
  std::vector<int32_t> ids(static_cast<size_t>(piece));
  for (int64_t j = 0; j < piece; ++j) ids[j] = RandomTokenId(j, a.vocab);
  AlignedFloats out(static_cast<size_t>(piece * d));  // [piece, d_model]
  for (size_t k = 0; k < lengths.size(); ++k) {
    SinusoidalRows(a, lengths[k], w, ids, out, rows);
    events.Progress(static_cast<int64_t>(k) + 1, "length " + std::to_string(lengths[k]));
  }
}

}  // namespace

std::vector<int64_t> CheckBenchPeRequest(const BenchPeRequest& a) {
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
  CheckVocab(a.vocab, a.d_model);
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
  return lengths;
}

std::vector<BenchPeRow> RunBenchPeJob(const BenchPeRequest& a, const JobEvents& events) {
  const std::vector<int64_t> lengths = CheckBenchPeRequest(a);
  SetNumThreads(static_cast<int>(a.threads));
  const int64_t longest = *std::max_element(lengths.begin(), lengths.end());
  std::vector<Row> rows;
  if (a.kind == "rope") {
    AllRopeRows(a, lengths, longest, events, rows);
  } else {
    AllSinusoidalRows(a, lengths, longest, events, rows);
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

  return rows;
}

}  // namespace phasor

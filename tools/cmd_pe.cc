// phasor pe: the positional-encoding table for positions start..start+length-1
// (sinusoidal PE, or the RoPE cos/sin table), and --similarity: a picture of
// how the encodings of two positions relate, against their distance.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/memory_limit.h"
#include "engine/npy.h"
#include "engine/size_limits.h"
#include "layers/rope.h"
#include "layers/sinusoidal.h"
#include "tools/cli_util.h"
#include "tools/commands.h"
#include "tools/plot.h"
#include "tools/sizes.h"

namespace phasor::cli {
namespace {

// A table larger than this many values is refused rather than allocated.
constexpr int64_t kMaxValues = int64_t{1} << 30;
// --similarity draws distances 0 .. length-1 from first positions up to 2^24.
constexpr int64_t k2p24 = int64_t{1} << 24;

struct PeArgs {
  std::string kind = "sinusoidal";
  int64_t d_model = 0;
  int64_t length = 0;
  int64_t start = 0;
  double base = 10000.0;
  std::string layout;       // "": interleaved (sinusoidal), half (rope)
  std::string denominator;  // "": d_model; sinusoidal only
  std::string mode = "on_the_fly";
  std::string output;
  std::string similarity;
  // RoPE.
  int64_t rotary_dim = 0;
  int64_t max_len = 4096;
  std::string scaling = "none";
  double factor = 1.0;
  int64_t original_max_len = 0;
  double beta_fast = 32.0, beta_slow = 1.0, attention_factor = 1.0;
  double low_freq_factor = 1.0, high_freq_factor = 4.0;
  // Which options were given (CLI11 counts), for the checks that need it.
  std::vector<std::pair<std::string, const CLI::Option*>> rope_only, scaling_keys;
  const CLI::Option* denominator_opt = nullptr;
  const CLI::Option* factor_opt = nullptr;
  const CLI::Option* original_max_len_opt = nullptr;
  const CLI::Option* attention_factor_opt = nullptr;
};

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

std::string Short(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The config key of a RopeProblem as the option that sets it: scaling.beta_fast
// -> --beta-fast.
std::string FlagOf(std::string key) {
  if (key.rfind("scaling.", 0) == 0) key = key.substr(8);
  if (key == "type") key = "scaling";
  if (key == "rotary_dim" || key == "original_max_len" || key == "max_len" || key == "beta_fast" ||
      key == "beta_slow" || key == "attention_factor" || key == "low_freq_factor" ||
      key == "high_freq_factor" || key == "base" || key == "offset" || key == "factor") {
    std::replace(key.begin(), key.end(), '_', '-');
  }
  return "--" + (key == "offset" ? std::string("start") : key);
}

// The RoPE of the arguments (positions start.. at offset 0), or UsageError.
RopeOptions RopeFromArgs(const PeArgs& a) {
  RopeOptions o;
  o.d_head = a.d_model;
  o.rotary_dim = a.rotary_dim;
  o.base = a.base;
  o.layout = ParseRopeLayout(a.layout.empty() ? "half" : a.layout);
  o.mode = ParsePeMode(a.mode);
  o.max_len = a.max_len;
  o.scaling.type = ParseRopeScalingType(a.scaling);
  // As in config.json: a key the type does not use is an error.
  static const std::vector<std::pair<RopeScalingType, std::vector<std::string>>> used = {
      {RopeScalingType::kNone, {}},
      {RopeScalingType::kLinear, {"--factor"}},
      {RopeScalingType::kNtk, {"--factor"}},
      {RopeScalingType::kDynamic, {"--factor", "--original-max-len"}},
      {RopeScalingType::kYarn,
       {"--factor", "--original-max-len", "--beta-fast", "--beta-slow", "--attention-factor"}},
      {RopeScalingType::kLlama3,
       {"--factor", "--original-max-len", "--low-freq-factor", "--high-freq-factor"}},
  };
  const auto& keys = std::find_if(used.begin(), used.end(), [&](const auto& u) {
                       return u.first == o.scaling.type;
                     })->second;
  for (const auto& [flag, opt] : a.scaling_keys) {
    if (opt->count() > 0 && std::find(keys.begin(), keys.end(), flag) == keys.end()) {
      throw UsageError(flag + " is not used by --scaling " + a.scaling);
    }
  }
  if (o.scaling.type != RopeScalingType::kNone && a.factor_opt->count() == 0) {
    throw UsageError("--scaling " + a.scaling + " needs --factor");
  }
  if (a.original_max_len_opt->count() > 0 && a.original_max_len <= 0) {
    throw UsageError("--original-max-len must be > 0, got " + std::to_string(a.original_max_len));
  }
  o.scaling.factor = a.factor;
  o.scaling.original_max_len = a.original_max_len;
  o.scaling.beta_fast = a.beta_fast;
  o.scaling.beta_slow = a.beta_slow;
  if (a.attention_factor_opt->count() > 0) o.scaling.attention_factor = a.attention_factor;
  o.scaling.low_freq_factor = a.low_freq_factor;
  o.scaling.high_freq_factor = a.high_freq_factor;
  if (const auto problem = FindRopeProblem(o)) {
    throw UsageError(FlagOf(problem->key) + ": " + problem->what);
  }
  return o;
}

// First positions drawn by --similarity: start, and farther ones up to 2^24.
std::vector<int64_t> SimilarityStarts(int64_t start, int64_t length) {
  std::vector<int64_t> starts = {start};
  for (int64_t p : {start + 1000, start + 1000000, k2p24 - length}) {
    if (p > starts.back() && p <= kMaxPosition - length) starts.push_back(p);
  }
  return starts;
}

// One curve per first position p against the distance k. Curves that differ
// by less than a pixel (1/1000 of the peak) would hide one another: they are
// drawn as one, and the title says they coincide and by how much at most;
// otherwise each is drawn thin in a colour of its own. The caption says what
// the y values are and their scale.
void WriteSimilarity(const std::string& path, const std::string& title, const std::string& y_label,
                     const std::string& what, const std::vector<int64_t>& starts,
                     const std::vector<std::vector<double>>& y) {
  LinePlotSpec spec;
  spec.x_label = "distance k (second position - first position)";
  spec.y_label = y_label;
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
                 " curves coincide (largest difference " + Short(spread) + ")";
  } else {
    spec.title = title + "; curves differ by up to " + Short(spread);
  }
  spec.caption =
      "y: " + what + "; " + Short(y[0][0]) + " at k = 0\none curve per first position p = " + ps;
  const std::string note = WriteLinePlotPng(path, spec);
  ReportWrote(path,
              y_label + " against distance k for " + std::to_string(starts.size()) +
                  " first positions (" + (coincide && starts.size() > 1 ? "they coincide, " : "") +
                  "largest difference " + Short(spread) + ")" + (note.empty() ? "" : "; " + note));
}

// Refuses a cached table that does not hold every position asked for, and a
// table (modes cached and auto) of more than kMaxValues values.
void CheckTable(const PeArgs& a, PeMode mode, int64_t width) {
  if (mode == PeMode::kCached && a.start + a.length > a.max_len) {
    throw UsageError("--start + --length " + std::to_string(a.start + a.length) +
                     " is past the cached table (--max-len " + std::to_string(a.max_len) +
                     "); raise --max-len or use --mode auto or on_the_fly");
  }
  if (mode != PeMode::kOnTheFly && a.max_len > kMaxValues / width) {
    throw UsageError("--max-len is too large for a cached table; use --mode on_the_fly");
  }
}

// "start..end" of the positions asked for.
std::string Range(const PeArgs& a) {
  return std::to_string(a.start) + ".." + std::to_string(a.start + a.length - 1);
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
  if (a.start > kMaxPosition - a.length) {
    throw UsageError("--start " + std::to_string(a.start) + " + --length " +
                     std::to_string(a.length) + " is past the largest position (2^40)");
  }
  if (a.max_len < 0) throw UsageError("--max-len must be >= 0, got " + std::to_string(a.max_len));
  if (a.kind != "sinusoidal" && a.kind != "rope") {
    throw UsageError("--kind must be sinusoidal or rope, got '" + a.kind + "'");
  }
  if (!a.similarity.empty()) {
    OutputFormat("--similarity", a.similarity, {".png"});
    // One distance is a point, not a curve.
    if (a.length < 2) {
      throw UsageError(
          "--similarity draws distances 0..--length - 1: --length must be 2 or "
          "more, got " +
          std::to_string(a.length));
    }
    CheckWritable(a.similarity);
  }
  const std::string format =
      a.output.empty() ? "" : OutputFormat("--output", a.output, {".npy", ".csv", ".png"});
  if (!a.output.empty()) CheckWritable(a.output);
  if (!std::isfinite(a.base) || a.base <= 1) {
    throw UsageError("--base must be a finite number greater than 1, got " + Short(a.base));
  }
  CheckAllocation(static_cast<uint64_t>(a.length) * static_cast<uint64_t>(a.d_model) * 4,
                  "--length " + std::to_string(a.length) + " x --d-model " +
                      std::to_string(a.d_model) + ": the table");
  const bool rope_kind = a.kind == "rope";
  std::unique_ptr<SinusoidalEncoding> pe;
  std::unique_ptr<Rope> rope;
  int64_t width = a.d_model;  // columns of the table
  std::string title;
  try {
    if (rope_kind) {
      if (a.denominator_opt->count() > 0) {
        throw UsageError("--denominator does not apply to --kind rope");
      }
      const RopeOptions o = RopeFromArgs(a);
      CheckTable(a, o.mode, o.r());
      rope = std::make_unique<Rope>(o);
      width = rope->rotary_dim();
      title = "RoPE, rotary_dim " + std::to_string(width) + ", base " + Short(a.base) + ", " +
              ToString(o.layout) +
              (o.scaling.type == RopeScalingType::kNone
                   ? std::string()
                   : std::string(", ") + ToString(o.scaling.type) + " x" + Short(a.factor));
    } else {
      for (const auto& [flag, opt] : a.rope_only) {
        if (opt->count() > 0) throw UsageError(flag + " applies to --kind rope only");
      }
      SinusoidalOptions o;
      o.d_model = a.d_model;
      o.base = a.base;
      o.layout = ParsePeLayout(a.layout.empty() ? "interleaved" : a.layout);
      o.denominator = ParsePeDenominator(a.denominator.empty() ? "d_model" : a.denominator);
      o.mode = ParsePeMode(a.mode);
      CheckTable(a, o.mode, a.d_model);
      // As a model's encoding: a table of --max-len rows, and in mode auto the
      // positions past it computed on the fly. On the fly: no table.
      o.max_len = o.mode == PeMode::kOnTheFly ? 0 : a.max_len;
      pe = std::make_unique<SinusoidalEncoding>(o);
      title = "Sinusoidal PE, d_model " + std::to_string(a.d_model) + ", base " + Short(a.base) +
              ", " + ToString(o.layout) + ", " + ToString(o.denominator);
    }
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    throw UsageError(e.what());
  }

  if (!a.output.empty() || a.similarity.empty()) {
    std::vector<float> table(static_cast<size_t>(a.length * width));  // [length, width]
    if (rope) {
      rope->FillTable(a.start, a.length, table.data());
    } else {
      pe->Fill(a.start, a.length, table.data());
    }
    if (a.output.empty()) {
      WriteCsv(std::cout, table.data(), a.start, a.length, width);
    } else if (format == ".npy") {
      WriteNpy(a.output, {a.length, width}, table.data());
      ReportWrote(a.output, "float32 [" + std::to_string(a.length) + ", " + std::to_string(width) +
                                "], positions " + Range(a) + " by row");
    } else if (format == ".csv") {
      std::ofstream out(a.output);
      if (!out) throw Error("cannot write " + a.output + ": " + std::strerror(errno));
      WriteCsv(out, table.data(), a.start, a.length, width);
      out.flush();
      if (!out) throw Error("cannot write " + a.output + ": " + std::strerror(errno));
      ReportWrote(a.output, std::to_string(a.length) + " rows (positions " + Range(a) + ") x " +
                                std::to_string(width) + " columns, and a header");
    } else {
      HeatmapSpec spec;
      spec.title = title;
      spec.first_row = a.start;
      const float amplitude = rope ? static_cast<float>(rope->attention_factor()) : 1.0f;
      spec.vmin = -amplitude;
      spec.vmax = amplitude;
      // Where the columns must be reduced, sin and cos columns stay apart.
      const bool paired = rope ? rope->options().layout == RopeLayout::kInterleaved
                               : pe->options().layout == PeLayout::kInterleaved;
      const std::string first = rope ? "cos" : "sin", second = rope ? "sin" : "cos";
      const int64_t h = width / 2;
      if (paired) {
        spec.groups = {{first + ": dims 2i", 0, 2, h, 0}, {second + ": dims 2i+1", 1, 2, h, 0}};
        spec.group_x_label = "pair i";
      } else {
        spec.groups = {{first + ": dims 0.." + std::to_string(h - 1), 0, 1, h, 0},
                       {second + ": dims " + std::to_string(h) + ".." + std::to_string(width - 1),
                        h, 1, h, h}};
      }
      spec.caption = paired
                         ? first + " in even dims (2i), " + second + " in odd dims (2i+1)"
                         : first + " in dims 0.." + std::to_string(h - 1) + ", " + second +
                               " in dims " + std::to_string(h) + ".." + std::to_string(width - 1);
      const std::string note = WriteHeatmapPng(a.output, table.data(), a.length, width, spec);
      ReportWrote(
          a.output,
          "positions " + Range(a) + " top to bottom, dimensions 0.." + std::to_string(width - 1) +
              " left to right; blue -" + Short(amplitude) + ", white 0, red +" + Short(amplitude) +
              (paired ? "; " + first + " in even dims, " + second + " in odd dims"
                      : "; " + first + " in dims 0.." + std::to_string(h - 1) + ", " + second +
                            " in " + std::to_string(h) + ".." + std::to_string(width - 1)) +
              (note.empty() ? "" : "; " + note));
    }
  }

  if (!a.similarity.empty()) {
    const std::vector<int64_t> starts = SimilarityStarts(a.start, a.length);
    std::vector<std::vector<double>> y;
    for (int64_t p : starts) {
      std::vector<double> curve(static_cast<size_t>(a.length));
      if (rope) {
        // q = k = (1, ..., 1) at positions p .. p+length-1 in one call; the
        // score of the query at p with the key at p + k.
        RopeOptions o = rope->options();
        o.offset = p;
        o.mode = PeMode::kOnTheFly;
        const Rope at(o);
        const int64_t d = a.d_model;
        std::vector<float> qkv(static_cast<size_t>(a.length * 3 * d), 1.0f);
        at.Apply(qkv.data(), 1, a.length, d, 1);
        for (int64_t k = 0; k < a.length; ++k) {
          double s = 0;
          for (int64_t i = 0; i < d; ++i) {
            s += static_cast<double>(qkv[i]) * static_cast<double>(qkv[k * 3 * d + d + i]);
          }
          curve[k] = s;
        }
      } else {
        SinusoidalOptions o = pe->options();
        o.mode = PeMode::kOnTheFly;  // first positions past a cached table
        const SinusoidalEncoding at(o);
        std::vector<float> rows(static_cast<size_t>(a.length * a.d_model));
        at.Fill(p, a.length, rows.data());
        for (int64_t k = 0; k < a.length; ++k) {
          double s = 0;
          for (int64_t i = 0; i < a.d_model; ++i) {
            s += static_cast<double>(rows[i]) * static_cast<double>(rows[k * a.d_model + i]);
          }
          curve[k] = s;
        }
      }
      y.push_back(std::move(curve));
    }
    if (rope) {
      WriteSimilarity(a.similarity, title, "score q(p).k(p+k), q = k = all ones",
                      "q(p).k(p+k), q = k = all ones: 2 cos(k theta_i) per rotated pair, 1 per "
                      "other dim",
                      starts, y);
    } else {
      WriteSimilarity(a.similarity, title, "PE(p).PE(p+k)",
                      "PE(p).PE(p+k) = sum over the d_model/2 pairs of cos(k freq_i)", starts, y);
    }
  }
}

}  // namespace

void AddPeCommand(CLI::App& app) {
  auto args = std::make_shared<PeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "pe",
      "Write the positional-encoding table (sinusoidal PE or RoPE cos/sin) for a range of "
      "positions, or a picture of its similarity against distance");
  cmd->add_option("--kind", args->kind,
                  "sinusoidal (PE rows of d_model) or rope (rows of rotary_dim: the rotation "
                  "of (1, 0) in every pair, cos then sin at the pair's two dims)")
      ->capture_default_str();
  AddSizeOption(cmd, "--d-model", &args->d_model,
                "Model width (even); for --kind rope the head dim")
      ->required()
      ->default_str("");
  AddSizeOption(cmd, "--length", &args->length,
                "Number of positions (--similarity: distances), e.g. 64, 100K")
      ->required()
      ->default_str("");
  AddSizeOption(cmd, "--start", &args->start, "First position");
  cmd->add_option("--base", args->base, "Frequency base")->capture_default_str();
  cmd->add_option("--layout", args->layout,
                  "sinusoidal: interleaved (default; sin, cos per pair) or split (sins, then "
                  "cosines); rope: half (default; pairs (i, i+r/2)) or interleaved "
                  "(pairs (2i, 2i+1))");
  args->denominator_opt =
      cmd->add_option("--denominator", args->denominator,
                      "sinusoidal only: d_model (default; base^(-2i/d_model)) or half_minus_one "
                      "(base^(-i/(d_model/2-1)))");
  cmd->add_option("--mode", args->mode, "cached, on_the_fly or auto")->capture_default_str();
  cmd->add_option("--output", args->output,
                  "FILE.npy (float32 [length, width]), FILE.csv, or FILE.png (heatmap); "
                  "default: CSV on stdout (unless --similarity)");
  cmd->add_option("--similarity", args->similarity,
                  "FILE.png: PE(p)·PE(p+k) (sinusoidal) or the RoPE score of q at p and k at "
                  "p+k against k, for several first positions p, to see that it depends on k "
                  "alone");
  // The default shown in --help is the one used: a value, or what it is
  // computed from.
  const auto rope_opt = [&](CLI::Option* o, bool scaling_key) {
    args->rope_only.emplace_back(o->get_name(), o);
    if (scaling_key) args->scaling_keys.emplace_back(o->get_name(), o);
    return o;
  };
  rope_opt(AddSizeOption(cmd, "--rotary-dim", &args->rotary_dim,
                         "rope: rotated dims r (even; 0: the head dim)"),
           false);
  AddSizeOption(cmd, "--max-len", &args->max_len,
                "Rows of the cached table (--mode cached: it must hold every position asked "
                "for; auto: positions past it are computed on the fly); rope: the default of L0");
  rope_opt(cmd->add_option("--scaling", args->scaling,
                           "rope: none, linear, ntk, dynamic, yarn or llama3")
               ->capture_default_str(),
           false);
  args->factor_opt = rope_opt(
      cmd->add_option("--factor", args->factor, "rope scaling: factor s (required with a scaling)"),
      true);
  args->original_max_len_opt =
      rope_opt(AddSizeOption(cmd, "--original-max-len", &args->original_max_len,
                             "rope scaling dynamic, yarn, llama3: L0 (default: --max-len)")
                   ->default_str(""),
               true);
  rope_opt(
      cmd->add_option("--beta-fast", args->beta_fast, "rope scaling yarn")->capture_default_str(),
      true);
  rope_opt(
      cmd->add_option("--beta-slow", args->beta_slow, "rope scaling yarn")->capture_default_str(),
      true);
  args->attention_factor_opt =
      rope_opt(cmd->add_option("--attention-factor", args->attention_factor,
                               "rope scaling yarn (default: 0.1 ln s + 1)"),
               true);
  rope_opt(cmd->add_option("--low-freq-factor", args->low_freq_factor, "rope scaling llama3")
               ->capture_default_str(),
           true);
  rope_opt(cmd->add_option("--high-freq-factor", args->high_freq_factor, "rope scaling llama3")
               ->capture_default_str(),
           true);
  cmd->callback([args] { RunPe(*args); });
}

}  // namespace phasor::cli

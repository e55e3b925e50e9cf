#include "commands/pe_job.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include "commands/option_checks.h"
#include "engine/error.h"
#include "engine/memory_limit.h"
#include "engine/npy.h"
#include "engine/output_file.h"
#include "engine/size_limits.h"

namespace phasor {
namespace {

// --similarity draws distances 0 .. length-1 from first positions up to 2^24.
constexpr int64_t k2p24 = int64_t{1} << 24;

// The options of --kind rope alone, and of them those of a scaling, in the
// order they are named when one is misplaced.
const std::vector<std::string> kRopeOnly = {
    "--rope-angles",      "--rotary-dim",      "--scaling",   "--factor",
    "--original-max-len", "--beta-fast",       "--beta-slow", "--attention-factor",
    "--low-freq-factor",  "--high-freq-factor"};
const std::vector<std::string> kScalingKeys(kRopeOnly.begin() + 3, kRopeOnly.end());

bool Given(const PeRequest& r, const std::string& option) {
  return std::find(r.given.begin(), r.given.end(), option) != r.given.end();
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

// The options a scaling type uses (as in config.json: a key the type does not
// use is an error).
const std::vector<std::string>& ScalingOptions(RopeScalingType type) {
  static const std::vector<std::pair<RopeScalingType, std::vector<std::string>>> used = {
      {RopeScalingType::kNone, {}},
      {RopeScalingType::kLinear, {"--factor"}},
      {RopeScalingType::kNtk, {"--factor"}},
      {RopeScalingType::kGte, {"--factor"}},
      {RopeScalingType::kDynamic, {"--factor", "--original-max-len"}},
      {RopeScalingType::kYarn,
       {"--factor", "--original-max-len", "--beta-fast", "--beta-slow", "--attention-factor"}},
      {RopeScalingType::kLlama3,
       {"--factor", "--original-max-len", "--low-freq-factor", "--high-freq-factor"}},
  };
  return std::find_if(used.begin(), used.end(), [&](const auto& u) { return u.first == type; })
      ->second;
}

// The scaling of the request, or UsageError.
RopeScaling ScalingFrom(const PeRequest& r) {
  RopeScaling s;
  s.type = ParseRopeScalingType(r.scaling);
  const std::vector<std::string>& keys = ScalingOptions(s.type);
  for (const std::string& flag : kScalingKeys) {
    if (Given(r, flag) && std::find(keys.begin(), keys.end(), flag) == keys.end()) {
      throw UsageError(flag + " is not used by --scaling " + r.scaling);
    }
  }
  if (s.type != RopeScalingType::kNone && !Given(r, "--factor")) {
    throw UsageError("--scaling " + r.scaling + " needs --factor");
  }
  if (Given(r, "--original-max-len") && r.original_max_len <= 0) {
    throw UsageError("--original-max-len must be > 0, got " + std::to_string(r.original_max_len));
  }
  s.factor = r.factor;
  s.original_max_len = r.original_max_len;
  s.beta_fast = r.beta_fast;
  s.beta_slow = r.beta_slow;
  if (Given(r, "--attention-factor")) s.attention_factor = r.attention_factor;
  s.low_freq_factor = r.low_freq_factor;
  s.high_freq_factor = r.high_freq_factor;
  return s;
}

// The RoPE of the request (positions start.. at offset 0), or UsageError.
RopeOptions RopeFrom(const PeRequest& r) {
  RopeOptions o;
  o.d_head = r.d_model;
  o.rotary_dim = r.rotary_dim;
  o.base = r.base;
  o.layout = ParseRopeLayout(r.layout.empty() ? "half" : r.layout);
  o.mode = ParsePeMode(r.mode);
  o.max_len = r.max_len;
  o.scaling = ScalingFrom(r);
  o.angles = ParseOption("--rope-angles", r.rope_angles, ParseRopeAngles);
  if (const auto problem = FindRopeProblem(o)) {
    throw UsageError(FlagOf(problem->key) + ": " + problem->what);
  }
  return o;
}

// Refuses a cached table that does not hold every position asked for, and a
// table (modes cached and auto) of more than kMaxPeTableValues values.
void CheckCachedTable(const PeRequest& r, PeMode mode, int64_t width) {
  if (mode == PeMode::kCached && r.start + r.length > r.max_len) {
    throw UsageError("--start + --length " + std::to_string(r.start + r.length) +
                     " is past the cached table (--max-len " + std::to_string(r.max_len) +
                     "); raise --max-len or use --mode auto or on_the_fly");
  }
  if (mode != PeMode::kOnTheFly && r.max_len > kMaxPeTableValues / width) {
    throw UsageError("--max-len is too large for a cached table; use --mode on_the_fly");
  }
}

// The sizes and positions asked for.
void CheckSizes(const PeRequest& r) {
  const TableArgNames names;
  if (r.length <= 0) throw UsageError("--length must be positive, got " + std::to_string(r.length));
  CheckTableStart(r.start, names);
  if (r.d_model <= 0 || r.d_model % 2 != 0) {
    throw UsageError("--d-model must be even and positive, got " + std::to_string(r.d_model));
  }
  CheckTableValues(r.length, r.d_model, names);
  CheckTablePositions(r.start, r.length, names);
  if (r.max_len < 0) throw UsageError("--max-len must be >= 0, got " + std::to_string(r.max_len));
  if (r.kind != "sinusoidal" && r.kind != "rope") {
    throw UsageError("--kind must be sinusoidal or rope, got '" + r.kind + "'");
  }
}

// The output files' names and directories, before anything is computed.
std::string CheckOutputs(const PeRequest& r) {
  if (!r.similarity.empty()) {
    OutputFormat("--similarity", r.similarity, {".png"});
    // One distance is a point, not a curve.
    if (r.length < 2) {
      throw UsageError(
          "--similarity draws distances 0..--length - 1: --length must be 2 or more, got " +
          std::to_string(r.length));
    }
    CheckWritable(r.similarity);
  }
  const std::string format =
      r.output.empty() ? "" : OutputFormat("--output", r.output, {".npy", ".csv", ".png"});
  CheckDistinctPaths({{"--output", r.output}, {"--similarity", r.similarity}});
  if (!r.output.empty()) CheckWritable(r.output);
  return format;
}

// First positions drawn by --similarity: start, and farther ones up to 2^24.
std::vector<int64_t> SimilarityStarts(int64_t start, int64_t length) {
  std::vector<int64_t> starts = {start};
  for (int64_t p : {start + 1000, start + 1000000, k2p24 - length}) {
    if (p > starts.back() && p <= kMaxPosition - length) starts.push_back(p);
  }
  return starts;
}

}  // namespace

void CheckTableStart(int64_t start, const TableArgNames& names) {
  if (start < 0) throw UsageError(names.start + " must be >= 0, got " + std::to_string(start));
}

void CheckTablePositions(int64_t start, int64_t length, const TableArgNames& names) {
  if (start > kMaxPosition - length) {
    throw UsageError(names.start + " " + std::to_string(start) + " + " + names.length + " " +
                     std::to_string(length) + " is past the largest position (2^40)");
  }
}

void CheckTableValues(int64_t length, int64_t width, const TableArgNames& names) {
  if (length > kMaxPeTableValues / width) {
    throw UsageError(names.length + " " + std::to_string(length) + " x " + names.width + " " +
                     std::to_string(width) + " is too large for one table (limit 2^30 values)");
  }
}

PeJob::PeJob(const PeRequest& request) : r_(request) {
  CheckSizes(r_);
  format_ = CheckOutputs(r_);
  if (!std::isfinite(r_.base) || r_.base <= 1) {
    throw UsageError("--base must be a finite number greater than 1, got " + FormatNumber(r_.base));
  }
  CheckAllocation(static_cast<uint64_t>(r_.length) * static_cast<uint64_t>(r_.d_model) * 4,
                  "--length " + std::to_string(r_.length) + " x --d-model " +
                      std::to_string(r_.d_model) + ": the table");
  width_ = r_.d_model;
  try {
    if (r_.kind == "rope") {
      MakeRope();
    } else {
      MakeSinusoidal();
    }
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

PeJob::~PeJob() = default;

void PeJob::MakeRope() {
  if (Given(r_, "--denominator")) throw UsageError("--denominator does not apply to --kind rope");
  const RopeOptions o = RopeFrom(r_);
  CheckCachedTable(r_, o.mode, o.r());
  rope_ = std::make_unique<Rope>(o);
  width_ = rope_->rotary_dim();
  title_ = "RoPE, rotary_dim " + std::to_string(width_) + ", base " + FormatNumber(r_.base) + ", " +
           ToString(o.layout) +
           (o.scaling.type == RopeScalingType::kNone
                ? std::string()
                : std::string(", ") + ToString(o.scaling.type) + " x" + FormatNumber(r_.factor));
}

void PeJob::MakeSinusoidal() {
  for (const std::string& flag : kRopeOnly) {
    if (Given(r_, flag)) throw UsageError(flag + " applies to --kind rope only");
  }
  SinusoidalOptions o;
  o.d_model = r_.d_model;
  o.base = r_.base;
  o.layout = ParsePeLayout(r_.layout.empty() ? "interleaved" : r_.layout);
  o.denominator = ParsePeDenominator(r_.denominator.empty() ? "d_model" : r_.denominator);
  o.mode = ParsePeMode(r_.mode);
  CheckCachedTable(r_, o.mode, r_.d_model);
  // As a model's encoding: a table of --max-len rows, and in mode auto the
  // positions past it computed on the fly. On the fly: no table.
  o.max_len = o.mode == PeMode::kOnTheFly ? 0 : r_.max_len;
  pe_ = std::make_unique<SinusoidalEncoding>(o);
  title_ = "Sinusoidal PE, d_model " + std::to_string(r_.d_model) + ", base " +
           FormatNumber(r_.base) + ", " + ToString(o.layout) + ", " + ToString(o.denominator);
}

std::string PeJob::Range() const {
  return std::to_string(r_.start) + ".." + std::to_string(r_.start + r_.length - 1);
}

double PeJob::amplitude() const { return rope_ ? rope_->attention_factor() : 1.0; }

bool PeJob::paired() const {
  return rope_ ? rope_->options().layout == RopeLayout::kInterleaved
               : pe_->options().layout == PeLayout::kInterleaved;
}

std::vector<float> PeJob::Table() const {
  std::vector<float> table(static_cast<size_t>(r_.length * width_));  // [length, width]
  if (rope_) {
    rope_->FillTable(r_.start, r_.length, table.data());
  } else {
    pe_->Fill(r_.start, r_.length, table.data());
  }
  return table;
}

void PeJob::WriteCsv(FunctionRef<void(const std::string&)> put, const float* table) const {
  std::string line = "position";
  for (int64_t k = 0; k < width_; ++k) line += "," + std::to_string(k);
  put(line + "\n");
  char buf[32];
  for (int64_t j = 0; j < r_.length; ++j) {
    line = std::to_string(r_.start + j);
    for (int64_t k = 0; k < width_; ++k) {
      std::snprintf(buf, sizeof buf, ",%.9g", static_cast<double>(table[j * width_ + k]));
      line += buf;
    }
    put(line + "\n");
  }
}

void PeJob::WriteTable(const float* table, const JobEvents& events) const {
  if (format_ == ".npy") {
    WriteNpy(r_.output, {r_.length, width_}, table);
    events.Wrote(r_.output, "float32 [" + std::to_string(r_.length) + ", " +
                                std::to_string(width_) + "], positions " + Range() + " by row");
    return;
  }
  OutputFile out(r_.output);
  WriteCsv([&](const std::string& line) { out.Write(line); }, table);
  out.Commit();
  events.Wrote(r_.output, std::to_string(r_.length) + " rows (positions " + Range() + ") x " +
                              std::to_string(width_) + " columns, and a header");
}

// q = k = (1, ..., 1) at positions p .. p+length-1 in one call; the score of
// the query at p with the key at p + k.
std::vector<double> PeJob::RopeCurve(int64_t p) const {
  RopeOptions o = rope_->options();
  o.offset = p;
  o.mode = PeMode::kOnTheFly;
  const Rope at(o);
  const int64_t d = r_.d_model;
  std::vector<float> qkv(static_cast<size_t>(r_.length * 3 * d), 1.0f);
  at.Apply(qkv.data(), 1, r_.length, d, 1);
  std::vector<double> curve(static_cast<size_t>(r_.length));
  for (int64_t k = 0; k < r_.length; ++k) {
    double s = 0;
    for (int64_t i = 0; i < d; ++i) {
      s += static_cast<double>(qkv[i]) * static_cast<double>(qkv[k * 3 * d + d + i]);
    }
    curve[k] = s;
  }
  return curve;
}

std::vector<double> PeJob::SinusoidalCurve(int64_t p) const {
  SinusoidalOptions o = pe_->options();
  o.mode = PeMode::kOnTheFly;  // first positions past a cached table
  const SinusoidalEncoding at(o);
  const int64_t d = r_.d_model;
  std::vector<float> rows(static_cast<size_t>(r_.length * d));
  at.Fill(p, r_.length, rows.data());
  std::vector<double> curve(static_cast<size_t>(r_.length));
  for (int64_t k = 0; k < r_.length; ++k) {
    double s = 0;
    for (int64_t i = 0; i < d; ++i) {
      s += static_cast<double>(rows[i]) * static_cast<double>(rows[k * d + i]);
    }
    curve[k] = s;
  }
  return curve;
}

SimilarityCurves PeJob::Similarity() const {
  SimilarityCurves c;
  c.starts = SimilarityStarts(r_.start, r_.length);
  for (int64_t p : c.starts) c.y.push_back(rope_ ? RopeCurve(p) : SinusoidalCurve(p));
  if (rope_) {
    c.y_label = "score q(p).k(p+k), q = k = all ones";
    c.what = "q(p).k(p+k), q = k = all ones: 2 cos(k theta_i) per rotated pair, 1 per other dim";
  } else {
    c.y_label = "PE(p).PE(p+k)";
    c.what = "PE(p).PE(p+k) = sum over the d_model/2 pairs of cos(k freq_i)";
  }
  return c;
}

}  // namespace phasor

// `phasor pe` as a library call: the positional-encoding table (sinusoidal PE,
// or RoPE's cos/sin table) for positions start .. start+length-1, checked from
// what is asked, and the similarity curves of --similarity. Writing .npy and
// .csv is here; pictures are the caller's (the CLI's tools/heatmap.cc).
//
//   PeRequest r;
//   r.d_model = 16;
//   r.length = 10;
//   const PeJob job(r);                      // UsageError for a bad request
//   const std::vector<float> t = job.Table();  // [10, 16]
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands/job_events.h"
#include "engine/parallel.h"
#include "layers/rope.h"
#include "layers/sinusoidal.h"

namespace phasor {

// A table larger than this many values is refused rather than allocated.
constexpr int64_t kMaxPeTableValues = int64_t{1} << 30;

// How a caller names the arguments of a table in its messages: "--start"
// (the CLI), "start" (the Python module).
struct TableArgNames {
  std::string start = "--start";
  std::string length = "--length";
  std::string width = "--d-model";
};

// UsageError "START must be >= 0, got -1" unless start >= 0.
void CheckTableStart(int64_t start, const TableArgNames& names);
// UsageError unless start + length - 1 is a position (below 2^40); start and
// length >= 0.
void CheckTablePositions(int64_t start, int64_t length, const TableArgNames& names);
// UsageError unless length × width values fit in one table (2^30); width > 0.
void CheckTableValues(int64_t length, int64_t width, const TableArgNames& names);

// What is asked, as the command line says it (each field is its option).
struct PeRequest {
  std::string kind = "sinusoidal";  // or "rope"
  int64_t d_model = 0;              // rope: the head dim
  int64_t length = 0;
  int64_t start = 0;
  double base = 10000.0;
  std::string layout;       // "": interleaved (sinusoidal), half (rope)
  std::string denominator;  // "": d_model; sinusoidal only
  std::string mode = "on_the_fly";
  int64_t max_len = 4096;
  std::string output;      // .npy, .csv or .png; "": CSV on stdout (unless similarity)
  std::string similarity;  // .png of the similarity curves; "": none
  // RoPE.
  int64_t rotary_dim = 0;
  std::string scaling = "none";
  double factor = 1.0;
  int64_t original_max_len = 0;
  double beta_fast = 32.0, beta_slow = 1.0, attention_factor = 1.0;
  double low_freq_factor = 1.0, high_freq_factor = 4.0;
  std::string rope_angles = "exact";  // or "library" (layers/rope.h RopeAngles)
  // The options given on the command line ("--factor"), for the checks that
  // depend on whether an option was given rather than on its value.
  std::vector<std::string> given;
};

// The similarity of positions p and p + k against the distance k: PE(p)·PE(p+k)
// (sinusoidal) or the RoPE score of q at p with k at p + k, q = k = all ones.
struct SimilarityCurves {
  std::vector<int64_t> starts;         // the first positions p
  std::vector<std::vector<double>> y;  // [starts][length]: y[s][k]
  std::string y_label;                 // "PE(p).PE(p+k)"
  std::string what;                    // what y is, at more length
};

class PeJob {
 public:
  // Checks the whole request (sizes, options, output paths, memory for the
  // table) and builds the encoding. Throws UsageError with the CLI's message,
  // or Error for a path that cannot be written or memory over the limit.
  explicit PeJob(const PeRequest& request);
  ~PeJob();

  bool rope() const { return rope_ != nullptr; }
  int64_t width() const { return width_; }  // columns of the table
  // What the table is: "Sinusoidal PE, d_model 16, base 10000, interleaved, d_model".
  const std::string& title() const { return title_; }
  // The output's format from its name: ".npy", ".csv", ".png"; "" without one.
  const std::string& format() const { return format_; }
  // "5..14": the positions asked for.
  std::string Range() const;
  // The largest magnitude of a value: 1, or RoPE's attention factor.
  double amplitude() const;
  // Whether pairs are neighbour columns (2i, 2i+1), else halves (i, i + width/2).
  bool paired() const;
  // What the first and second column of a pair hold: "sin", "cos" (RoPE: "cos", "sin").
  std::string first_of_pair() const { return rope() ? "cos" : "sin"; }
  std::string second_of_pair() const { return rope() ? "sin" : "cos"; }

  // The rows of positions start .. start+length-1: [length, width].
  std::vector<float> Table() const;
  // table as CSV, handed to put a line at a time: a header
  // "position,0,1,..", then one row a position.
  void WriteCsv(FunctionRef<void(const std::string&)> put, const float* table) const;
  // table to the .npy or .csv output; events.wrote names it.
  void WriteTable(const float* table, const JobEvents& events) const;
  // The curves of --similarity.
  SimilarityCurves Similarity() const;

 private:
  void MakeRope();
  void MakeSinusoidal();
  std::vector<double> RopeCurve(int64_t p) const;
  std::vector<double> SinusoidalCurve(int64_t p) const;

  PeRequest r_;
  std::unique_ptr<SinusoidalEncoding> pe_;
  std::unique_ptr<Rope> rope_;
  int64_t width_ = 0;
  std::string title_, format_;
};

}  // namespace phasor

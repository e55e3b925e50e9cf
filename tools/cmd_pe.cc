// phasor pe: the positional-encoding table for positions start..start+length-1
// (sinusoidal PE, or the RoPE cos/sin table), and --similarity: a picture of
// how the encodings of two positions relate, against their distance
// (commands/pe_job.h computes; tools/plot_pe.h draws; this file parses
// and prints).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands/pe_job.h"
#include "tools/cli_util.h"
#include "tools/commands.h"
#include "tools/plot_pe.h"
#include "tools/sizes.h"

namespace phasor::cli {
namespace {

struct PeArgs {
  PeRequest request;
  // The options whose presence matters (PeRequest::given), by name.
  std::vector<const CLI::Option*> watched;
};

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
  watch(cmd->add_option("--rope-angles", r.rope_angles,
                        "rope: exact, or library (float32, as the models' own Python code)")
            ->capture_default_str());
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

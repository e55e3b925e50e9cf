// phasor embed: embed a long sequence of random tokens with PE, chunk by chunk
// (commands/embed_job.h).
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands/embed_job.h"
#include "engine/cpu.h"
#include "engine/parallel.h"
#include "tools/cli_util.h"
#include "tools/commands.h"
#include "tools/progress.h"
#include "tools/sizes.h"

namespace phasor::cli {
namespace {

struct EmbedArgs {
  EmbedRequest request;
  int64_t chunk = 0;  // request's only if given
  bool json = false;
  const CLI::Option* chunk_opt = nullptr;
};

void PrintJson(const EmbedRequest& r, const EmbedResult& res) {
  nlohmann::json j = {{"seq_len", r.seq_len},
                      {"d_model", r.d_model},
                      {"vocab", r.vocab},
                      {"pe_mode", ToString(res.plan.mode)},
                      {"chunk", res.plan.chunk},
                      {"threads", NumThreads()},
                      {"repeat", r.repeat},
                      {"seconds", res.seconds},
                      {"tokens_per_s", res.tokens_per_s},
                      {"gb_per_s", res.gb_per_s},
                      {"table_seconds", res.table_seconds},
                      {"table_rows", res.plan.table_rows},
                      {"last_row_sum", res.last_row_sum}};
  if (!r.output.empty()) j["output"] = r.output;
  j["isa"] = IsaName(ActiveIsa());
  std::cout << j.dump() << "\n";
}

void PrintText(const EmbedRequest& r, const EmbedResult& res) {
  std::printf("phasor embed: %lld tokens x d_model %lld, PE %s, chunk %lld, %s\n",
              static_cast<long long>(r.seq_len), static_cast<long long>(r.d_model),
              ToString(res.plan.mode), static_cast<long long>(res.plan.chunk),
              Plural(NumThreads(), "thread").c_str());
  if (res.plan.table_rows) {
    std::printf("  PE table: %lld rows built in %.4f s\n",
                static_cast<long long>(res.plan.table_rows), res.table_seconds);
  }
  std::printf("  embedding pass: %.4f s (median of %lld)  %s tokens/s  %.2f GB/s written\n",
              res.seconds, static_cast<long long>(r.repeat), FormatSi(res.tokens_per_s).c_str(),
              res.gb_per_s);
  std::printf("  last row sum: %.6g\n", res.last_row_sum);
}

void RunEmbed(EmbedArgs& a) {
  EmbedRequest& r = a.request;
  if (a.chunk_opt->count() > 0) r.chunk = a.chunk;
  // Made at the first chunk, once the sizes are checked.
  std::unique_ptr<Progress> progress;
  JobEvents events;
  events.progress = [&](int64_t done, const std::string&) {
    if (!progress) progress = std::make_unique<Progress>(r.seq_len * r.repeat, "tokens", !a.json);
    progress->Update(done);
  };
  events.wrote = [&](const std::string& path, const std::string& what) {
    if (progress) progress->Finish();
    ReportWrote(path, what);
  };
  const EmbedResult res = RunEmbedJob(r, events);
  if (progress) progress->Finish();
  if (a.json) {
    PrintJson(r, res);
  } else {
    PrintText(r, res);
  }
}

}  // namespace

void AddEmbedCommand(CLI::App& app) {
  auto args = std::make_shared<EmbedArgs>();
  EmbedRequest& r = args->request;
  CLI::App* cmd = app.add_subcommand(
      "embed", "Embed a long sequence of random tokens (fixed seed) with PE, in chunks");
  AddSizeOption(cmd, "--seq-len", &r.seq_len, "Tokens in the sequence (e.g. 100000, 1M)")
      ->required()
      ->default_str("");
  AddSizeOption(cmd, "--d-model", &r.d_model, "Model width (even)");
  AddSizeOption(cmd, "--vocab", &r.vocab, "Vocabulary size");
  cmd->add_option("--pe-mode", r.pe_mode, "cached, on_the_fly or auto")->capture_default_str();
  AddSizeOption(cmd, "--max-len", &r.max_len, "Rows of the table in mode auto (cached: --seq-len)");
  args->chunk_opt = AddSizeOption(cmd, "--chunk", &args->chunk,
                                  "Tokens per chunk (default: one chunk of output fills 8 MiB)")
                        ->default_str("");
  AddSizeOption(cmd, "--threads", &r.threads,
                "Threads (0: OMP_NUM_THREADS if set, else all cores)");
  AddSizeOption(cmd, "--repeat", &r.repeat, "Passes; the median is reported");
  cmd->add_option("--output", r.output,
                  "Write every row (token row + PE) as NPY float32 [seq-len, d-model]; "
                  "at most 2^28 values");
  cmd->add_flag("--json", args->json, "Print one JSON object");
  cmd->callback([args] { RunEmbed(*args); });
}

}  // namespace phasor::cli

// phasor embed: embed a long sequence of random tokens with PE, chunk by chunk.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "engine/cpu.h"
#include "engine/memory_limit.h"
#include "engine/npy.h"
#include "engine/parallel.h"
#include "layers/embedding.h"
#include "models/random_sequence.h"
#include "tools/cli_util.h"
#include "tools/commands.h"
#include "tools/progress.h"
#include "tools/sizes.h"

namespace phasor::cli {
namespace {

struct EmbedArgs {
  int64_t seq_len = 0;
  int64_t d_model = 512;
  int64_t vocab = 32000;
  std::string pe_mode = "on_the_fly";
  std::string output;  // .npy of every row, [seq_len, d_model]
  int64_t max_len = 4096;
  int64_t chunk = 0;  // unless given: sized so one chunk of output fills 8 MiB
  int64_t threads = 0;
  int64_t repeat = 1;
  bool json = false;
  const CLI::Option* chunk_opt = nullptr;
};

void RunEmbed(const EmbedArgs& a) {
  CheckRange("--seq-len", a.seq_len, 1, int64_t{1} << 40);
  CheckRange("--d-model", a.d_model, 2, 65536);
  if (a.d_model % 2) throw UsageError("--d-model must be even, got " + std::to_string(a.d_model));
  CheckRange("--vocab", a.vocab, 1, int64_t{1} << 31);
  CheckRange("--max-len", a.max_len, 1, int64_t{1} << 40);
  CheckRange("--threads", a.threads, 0, 1024);
  CheckRange("--repeat", a.repeat, 1, 1000000);
  const int64_t chunk = a.chunk_opt->count() > 0
                            ? a.chunk
                            : std::max<int64_t>(16, (int64_t{8} << 20) / (4 * a.d_model));
  CheckRange("--chunk", chunk, 1, int64_t{1} << 30);
  if (chunk * a.d_model > kGiB) throw UsageError("--chunk × --d-model is over 2^30 floats");
  if (a.vocab * a.d_model > kGiB) throw UsageError("--vocab × --d-model is over 2^30 floats");
  PeMode mode;
  try {
    mode = ParsePeMode(a.pe_mode);
  } catch (const Error& e) {
    throw UsageError(std::string("--pe-mode: ") + e.what());
  }
  // The cached table holds every position; auto's holds --max-len.
  const int64_t table_rows =
      mode == PeMode::kCached ? a.seq_len : (mode == PeMode::kAuto ? a.max_len : 0);
  if (table_rows > kGiB / a.d_model) {
    throw UsageError("a cached PE table of " + std::to_string(table_rows) + " rows x " +
                     std::to_string(a.d_model) + " would need " +
                     std::to_string(table_rows * a.d_model * 4 / kGiB) +
                     " GiB or more; use --pe-mode on_the_fly or auto");
  }
  if (!a.output.empty()) {
    if (a.seq_len > (int64_t{1} << 28) / a.d_model) {
      throw UsageError(
          "--output holds every row: --seq-len × --d-model must be at most 2^28, got " +
          std::to_string(a.seq_len) + " × " + std::to_string(a.d_model));
    }
    OutputFormat("--output", a.output, {".npy"});
    CheckWritable(a.output);
  }
  // The token table, the cached PE table, one chunk of output and the --output rows.
  const uint64_t d = static_cast<uint64_t>(a.d_model);
  const uint64_t output_rows = a.output.empty() ? 0 : static_cast<uint64_t>(a.seq_len);
  CheckAllocation((static_cast<uint64_t>(a.vocab) + static_cast<uint64_t>(table_rows) +
                   static_cast<uint64_t>(chunk) + output_rows) *
                      d * sizeof(float),
                  a.output.empty() ? "--vocab, the PE table and --chunk"
                                   : "--vocab, the PE table, --chunk and --output rows");
  SetNumThreads(static_cast<int>(a.threads));

  // The token table: small values from a fixed seed.
  AlignedFloats table(static_cast<size_t>(a.vocab * a.d_model));  // [vocab, d_model]
  FillRandomTokenTable(a.vocab, a.d_model, table.data());
  Weights w("embed");
  w.AddAligned("embedding.weight", {a.vocab, a.d_model}, std::move(table));

  SinusoidalOptions po;
  po.d_model = a.d_model;
  po.mode = mode;
  po.max_len = table_rows;
  const double t0 = Now();
  const SinusoidalEncoding pe(po);
  const double table_seconds = Now() - t0;
  const Embedding emb(w, {a.vocab, a.d_model, false, 0}, &pe);

  std::vector<int32_t> ids(static_cast<size_t>(chunk));       // [chunk]
  AlignedFloats out(static_cast<size_t>(chunk * a.d_model));  // [chunk, d_model]
  std::vector<float> rows;                                    // [seq_len, d_model] with --output
  if (!a.output.empty()) rows.resize(static_cast<size_t>(a.seq_len * a.d_model));
  std::vector<double> seconds;
  double checksum = 0;
  Progress progress(a.seq_len * a.repeat, "tokens", !a.json);
  for (int64_t r = 0; r < a.repeat; ++r) {
    double pass = 0;
    for (int64_t j0 = 0; j0 < a.seq_len; j0 += chunk) {
      const int64_t n = std::min(chunk, a.seq_len - j0);
      for (int64_t j = 0; j < n; ++j) ids[j] = RandomTokenId(j0 + j, a.vocab);
      const double c0 = Now();
      emb.ForwardRange(ids.data(), n, j0, out.data());
      pass += Now() - c0;
      if (r == 0 && !rows.empty()) {
        std::copy(out.begin(), out.begin() + n * a.d_model, rows.begin() + j0 * a.d_model);
      }
      progress.Update(r * a.seq_len + j0 + n);
    }
    seconds.push_back(pass);
  }
  progress.Finish();
  if (!a.output.empty()) {
    WriteNpy(a.output, {a.seq_len, a.d_model}, rows.data());
    ReportWrote(a.output, "float32 [" + std::to_string(a.seq_len) + ", " +
                              std::to_string(a.d_model) + "], every row (token row + PE)");
  }
  const int64_t last = (a.seq_len - 1) % chunk;
  for (int64_t k = 0; k < a.d_model; ++k) checksum += out[last * a.d_model + k];

  const double s = Median(seconds);
  const double tokens_per_s = static_cast<double>(a.seq_len) / s;
  const double gb_per_s = static_cast<double>(a.seq_len * a.d_model * 4) / s / 1e9;
  if (a.json) {
    nlohmann::json j = {{"seq_len", a.seq_len},
                        {"d_model", a.d_model},
                        {"vocab", a.vocab},
                        {"pe_mode", ToString(mode)},
                        {"chunk", chunk},
                        {"threads", NumThreads()},
                        {"repeat", a.repeat},
                        {"seconds", s},
                        {"tokens_per_s", tokens_per_s},
                        {"gb_per_s", gb_per_s},
                        {"table_seconds", table_seconds},
                        {"table_rows", table_rows},
                        {"last_row_sum", checksum}};
    if (!a.output.empty()) j["output"] = a.output;
    j["isa"] = IsaName(ActiveIsa());
    std::cout << j.dump() << "\n";
  } else {
    std::printf("phasor embed: %lld tokens x d_model %lld, PE %s, chunk %lld, %s\n",
                static_cast<long long>(a.seq_len), static_cast<long long>(a.d_model),
                ToString(mode), static_cast<long long>(chunk),
                Plural(NumThreads(), "thread").c_str());
    if (table_rows) {
      std::printf("  PE table: %lld rows built in %.4f s\n", static_cast<long long>(table_rows),
                  table_seconds);
    }
    std::printf("  embedding pass: %.4f s (median of %lld)  %s tokens/s  %.2f GB/s written\n", s,
                static_cast<long long>(a.repeat), FormatSi(tokens_per_s).c_str(), gb_per_s);
    std::printf("  last row sum: %.6g\n", checksum);
  }
}

}  // namespace

void AddEmbedCommand(CLI::App& app) {
  auto args = std::make_shared<EmbedArgs>();
  CLI::App* cmd = app.add_subcommand(
      "embed", "Embed a long sequence of random tokens (fixed seed) with PE, in chunks");
  AddSizeOption(cmd, "--seq-len", &args->seq_len, "Tokens in the sequence (e.g. 100000, 1M)")
      ->required()
      ->default_str("");
  AddSizeOption(cmd, "--d-model", &args->d_model, "Model width (even)");
  AddSizeOption(cmd, "--vocab", &args->vocab, "Vocabulary size");
  cmd->add_option("--pe-mode", args->pe_mode, "cached, on_the_fly or auto")->capture_default_str();
  AddSizeOption(cmd, "--max-len", &args->max_len,
                "Rows of the table in mode auto (cached: --seq-len)");
  args->chunk_opt = AddSizeOption(cmd, "--chunk", &args->chunk,
                                  "Tokens per chunk (default: one chunk of output fills 8 MiB)")
                        ->default_str("");
  AddSizeOption(cmd, "--threads", &args->threads, "Threads (0: all cores)");
  AddSizeOption(cmd, "--repeat", &args->repeat, "Passes; the median is reported");
  cmd->add_option("--output", args->output,
                  "Write every row (token row + PE) as NPY float32 [seq-len, d-model]; "
                  "at most 2^28 values");
  cmd->add_flag("--json", args->json, "Print one JSON object");
  cmd->callback([args] { RunEmbed(*args); });
}

}  // namespace phasor::cli

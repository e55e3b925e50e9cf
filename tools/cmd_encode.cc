// phasor encode: run the encoder on token ids (commands/encode_job.h).
#include <sys/resource.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands/encode_job.h"
#include "engine/cpu.h"
#include "engine/memory_limit.h"
#include "engine/parallel.h"
#include "tools/cli_util.h"
#include "tools/commands.h"
#include "tools/progress.h"
#include "tools/sizes.h"
#include "tools/text_options.h"

namespace phasor::cli {
namespace {

struct EncodeArgs {
  EncodeRequest request;
  bool json = false;
  const CLI::Option* tokens_opt = nullptr;
  const CLI::Option* tokens_file_opt = nullptr;
  const CLI::Option* text_file_opt = nullptr;
  std::string tokens, tokens_file, text_file;  // as read; request's only if given
  TruncateFlags truncate;
};

// Every option and value of encode, in its --help's usage line.
const char kEncodeSynopsis[] =
    "phasor encode [--model DIR] (--tokens \"IDS\" | --tokens-file FILE | --text-file FILE "
    "[--jsonl-field NAME[,NAME_B] | --csv-column NAME[,NAME_B]] [--pairs] [--no-special] "
    "[--prompt NAME | --prefix TEXT] [--invalid-utf8 error|replace]) (FILE '-': standard input) "
    "[--output OUT.npy|OUT.csv] [--layout padded|packed] [--offsets OFFSETS.npy] "
    "[--stage embeddings|final|pooler|logits] "
    "[--pool none|mean|cls|max|last|mean_sqrt_len|model] [--normalize] "
    "[--truncate | --no-truncate] [--batch-tokens N] [--pe-mode cached|on_the_fly|auto] "
    "[--precision fp32|bf16|int8] [--rope-angles exact|library] [--threads N] [--repeat R] "
    "[--json]";

// The kernel the products of this precision ran on (engine/cpu.h).
const char* ProductKernel(Precision p) {
  switch (p) {
    case Precision::kBf16:
      return Bf16ProductKernel();
    case Precision::kInt8:
      return Int8ProductKernel();
    case Precision::kFp32:
      break;
  }
  return ActiveIsa() == Isa::kPortable ? "portable" : "fma";
}

void PrintJson(const EncodeRequest& r, const EncodeResult& res) {
  const ModelConfig& c = res.config;
  nlohmann::json j = {{"model", res.model_name},
                      {"batch", res.batch},
                      {"seq_len", res.seq_len},
                      {"d_model", c.d_model},
                      {"n_layers", c.n_layers},
                      {"stage", r.stage},
                      {"layout", res.layout},
                      {"pool", ToString(res.pool)},
                      {"pool_option", res.pool_option},
                      {"normalize", res.normalize},
                      {"dense", res.dense},
                      {"truncate", res.truncate},
                      {"max_length", res.max_length},
                      {"pe_mode", ToString(c.positional.mode)},
                      {"precision", ToString(res.precision)},
                      {"rope_angles", ToString(c.positional.rope_angles)},
                      {"weight_bytes", res.weight_bytes},
                      {"threads", NumThreads()},
                      {"repeat", r.repeat},
                      {"real_tokens", res.real_tokens},
                      {"batch_tokens", res.batch_tokens},
                      {"batches", res.batches},
                      {"seconds", res.seconds},
                      {"tokens_per_s", res.tokens_per_s}};
  if (res.max_length > 0) j["max_length_of"] = res.max_length_of;
  if (r.text_file) j["tokenize_seconds"] = res.tokenize_seconds;
  j["isa"] = IsaName(ActiveIsa());
  j["product_kernel"] = ProductKernel(res.precision);
  if (!r.output.empty()) j["output"] = r.output;
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) == 0) j["peak_rss_bytes"] = int64_t{usage.ru_maxrss} * 1024;
  std::cout << j.dump() << "\n";
}

void PrintText(const EncodeRequest& r, const EncodeResult& res) {
  const ModelConfig& c = res.config;
  const int64_t d = c.d_model;
  const bool pooled = res.pool != Pooling::kNone;
  std::printf(
      "model      %s: vocab %lld, d_model %lld, %lld heads, %lld layers, d_ff %lld, %s, %s\n",
      res.model_name.c_str(), static_cast<long long>(c.vocab_size), static_cast<long long>(d),
      static_cast<long long>(c.n_heads), static_cast<long long>(c.n_layers),
      static_cast<long long>(c.d_ff), ToString(c.activation), c.norm_first ? "pre-LN" : "post-LN");
  std::printf("positional %s, PE mode %s%s%s\n", ToString(c.positional.kind),
              ToString(c.positional.mode),
              c.positional.kind == PositionalKind::kRope ? ", angles " : "",
              c.positional.kind == PositionalKind::kRope ? ToString(c.positional.rope_angles) : "");
  std::printf("precision  %s (weights %s; products: %s on %s)\n", ToString(res.precision),
              FormatBytes(static_cast<uint64_t>(res.weight_bytes)).c_str(),
              ProductKernel(res.precision), IsaName(ActiveIsa()));
  std::printf("input      %lld sequence(s), longest %lld tokens (%lld real in all)\n",
              static_cast<long long>(res.batch), static_cast<long long>(res.seq_len),
              static_cast<long long>(res.real_tokens));
  if (res.max_length > 0) {
    std::printf("limit      %lld tokens a line (%s), longer lines %s\n",
                static_cast<long long>(res.max_length), res.max_length_of.c_str(),
                res.truncate ? "cut" : "refused");
  }
  std::printf("batches    %lld of at most %lld real tokens (the budget)\n",
              static_cast<long long>(res.batches), static_cast<long long>(res.batch_tokens));
  std::string dims;
  for (size_t k = 0; k < res.shape.size(); ++k) {
    dims += (k ? ", " : "") + std::to_string(res.shape[k]);
  }
  std::string pooling;
  if (pooled) {
    pooling = std::string(", ") + ToString(res.pool) + " pooled" + (res.dense ? ", Dense" : "") +
              (res.normalize ? ", normalized" : "") +
              (res.pool_option == "model" ? " (the folder's modules.json)" : "");
  }
  std::printf("output     %s%s%s [%s]%s%s\n", r.stage.c_str(), pooling.c_str(),
              res.layout == "packed" ? ", packed" : "", dims.c_str(),
              r.output.empty() ? "" : " -> ", r.output.c_str());
  std::printf("time       %s (median of %lld), %s tokens/s (real tokens), %s\n",
              FormatDuration(res.seconds).c_str(), static_cast<long long>(r.repeat),
              FormatSi(res.tokens_per_s).c_str(), Plural(NumThreads(), "thread").c_str());
  const bool head = r.stage == "pooler" || r.stage == "logits";
  const int64_t width = res.shape.back();  // values a row
  const int64_t show = std::min<int64_t>(4, width);
  const bool one_row = pooled || head || res.first_length == 1;
  for (int64_t row = 0; row < (one_row ? 1 : 2); ++row) {
    if (pooled || head) {
      std::printf("seq 0, %s:", pooled ? ToString(res.pool) : r.stage.c_str());
    } else {
      std::printf("seq 0, token %lld:",
                  static_cast<long long>(row == 0 ? 0 : res.first_length - 1));
    }
    for (int64_t k = 0; k < show; ++k) std::printf(" %9.5f", res.first_rows[row * width + k]);
    std::printf(" ...\n");
  }
}

void RunEncode(EncodeArgs& a) {
  EncodeRequest& r = a.request;
  if (a.tokens_opt->count() > 0) r.tokens = a.tokens;
  if (a.tokens_file_opt->count() > 0) r.tokens_file = a.tokens_file;
  if (a.text_file_opt->count() > 0) r.text_file = a.text_file;
  r.truncate = TruncateChoice(a.truncate);
  std::unique_ptr<Progress> progress;
  JobEvents events;
  events.warning = [](const std::string& w) { std::cerr << "phasor: warning: " << w << "\n"; };
  events.progress = [&](int64_t done, const std::string& note) { progress->Update(done, note); };
  events.wrote = [&](const std::string& path, const std::string& what) {
    progress->Finish();
    ReportWrote(path, what);
  };
  EncodeJob job(r, events);
  progress = std::make_unique<Progress>(job.total_work(), "tokens", !a.json);
  const EncodeResult res = job.Run();
  progress->Finish();
  if (a.json) {
    PrintJson(r, res);
  } else {
    PrintText(r, res);
  }
}

}  // namespace

void AddEncodeCommand(CLI::App& app) {
  auto args = std::make_shared<EncodeArgs>();
  EncodeRequest& r = args->request;
  CLI::App* cmd = app.add_subcommand("encode", "Run the encoder on token ids or text");
  cmd->add_option(
      "--model", r.model,
      "Model directory (config.json, model.safetensors); default: the built-in toy model");
  args->tokens_opt =
      cmd->add_option("--tokens", args->tokens, "One sequence of ids, e.g. \"3 14 15\"");
  args->tokens_file_opt = cmd->add_option(
      "--tokens-file", args->tokens_file,
      "A file with one sequence a line, ids separated by spaces or commas; ragged lines "
      "are encoded by their lengths (no pad_token_id needed); '-': standard input");
  args->text_file_opt = cmd->add_option(
      "--text-file", args->text_file,
      "UTF-8 text, one text a line (or JSON lines, CSV, TSV: --jsonl-field, --csv-column), "
      "tokenized by the model folder's own tokenizer (tokenizer.json, vocab.txt, ...) on the "
      "worker threads; '-' (or a pipe, /dev/stdin, <(...)): standard input");
  AddTextFormatOptions(cmd, r.text, "With --text-file: ");
  cmd->add_flag("--pairs", r.text.pairs,
                "With --text-file: each line is text_a<TAB>text_b (BERT's segments A and B)");
  cmd->add_flag("--no-special", r.text.no_special,
                "With --text-file: leave out the special tokens ([CLS], [SEP], ...)");
  cmd->add_option("--invalid-utf8", r.text.invalid_utf8,
                  "With --text-file: error (name the line and byte) or replace (U+FFFD)")
      ->capture_default_str();
  cmd->add_option("--prompt", r.text.prompt,
                  "With --text-file: a prompt's name in config_sentence_transformers.json, put "
                  "before each text");
  cmd->add_option("--prefix", r.text.prefix,
                  "With --text-file: text put before each text (e.g. \"query: \")");
  cmd->add_option("--output", r.output,
                  "FILE.npy: float32 [batch, seq, d_model] (padding 0), or with --layout "
                  "packed [real tokens, d_model], or with --pool or --stage pooler|logits "
                  "[batch, width], written as batches finish; FILE.csv for one row a line "
                  "(--pool, --stage pooler|logits): a line a row, values exact (%.9g)");
  cmd->add_option("--layout", r.layout,
                  "padded ([batch, seq, d_model]) or packed (the real tokens' rows back to back, "
                  "and their offsets in --offsets)")
      ->capture_default_str();
  cmd->add_option("--offsets", r.offsets,
                  "With --layout packed: FILE.npy for int64 [batch + 1], line i in rows "
                  "offsets[i] .. offsets[i + 1] (default: OUTPUT's name with .offsets.npy)");
  cmd->add_option("--pool", r.pool,
                  "One vector a line: mean or max over its real tokens, cls (its first), last, "
                  "mean_sqrt_len (the sum over sqrt(tokens)), or model (what a "
                  "sentence-transformers folder's modules.json declares, its Dense and Normalize "
                  "too); none: every row. Default: model for a sentence-transformers folder "
                  "(modules.json) at --stage final, --layout padded; otherwise none");
  cmd->add_flag("--normalize", r.normalize, "With --pool: scale each vector to unit L2 norm");
  AddTruncateFlags(
      cmd, args->truncate,
      "Cut a longer line to its first tokens instead of refusing it. Text: at the least of the "
      "tokenizer's model_max_length (tokenizer_config.json), a sentence-transformers folder's "
      "max_seq_length (sentence_bert_config.json) and the model's positions "
      "(max_position_embeddings), special tokens kept, as sentence-transformers cuts (the "
      "default for a sentence-transformers folder); token ids: at the model's positions");
  AddSizeOption(cmd, "--batch-tokens", &r.batch_tokens,
                "Real tokens encoded at once at most; memory is bounded by it (0: 2K, or the "
                "longest line if longer)");
  cmd->add_option("--stage", r.stage,
                  "embeddings (the encoder's input), final, pooler (BERT's pooler output, "
                  "[batch, d_model]) or logits (a classification checkpoint's head, [batch, "
                  "num_labels]); pooler and logits read each line's first token, without --pool")
      ->capture_default_str();
  cmd->add_option("--pe-mode", r.pe_mode, "cached, on_the_fly or auto (default: the config's)");
  cmd->add_option("--precision", r.precision,
                  "Number format of the weight products: fp32, bf16 or int8")
      ->capture_default_str();
  cmd->add_option("--rope-angles", r.rope_angles,
                  "Rotary angles: exact, or library (float32, as the model's own Python code; "
                  "no effect without rotary positions)")
      ->capture_default_str();
  AddSizeOption(cmd, "--threads", &r.threads,
                "Threads (0: OMP_NUM_THREADS if set, else all cores)");
  AddSizeOption(cmd, "--repeat", &r.repeat, "Runs; the median time is reported");
  cmd->add_flag("--json", args->json, "Print one JSON object");
  cmd->formatter(std::make_shared<SynopsisFormatter>(kEncodeSynopsis));
  cmd->callback([args] { RunEncode(*args); });
}

}  // namespace phasor::cli

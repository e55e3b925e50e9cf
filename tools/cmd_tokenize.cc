// phasor tokenize: text to ids with the model's own tokenizer
// (commands/tokenize_job.h).
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands/tokenize_job.h"
#include "engine/error.h"
#include "engine/parallel.h"
#include "tools/cli_util.h"
#include "tools/commands.h"
#include "tools/text_options.h"

namespace phasor::cli {
namespace {

struct TokenizeArgs {
  TokenizeRequest request;
  bool json = false;
  bool offsets = false, byte_offsets = false;
  TruncateFlags truncate;
};

void RunTokenizeCommand(TokenizeArgs& a) {
  a.request.text.truncate = TruncateChoice(a.truncate);
  if (a.offsets && a.byte_offsets)
    throw phasor::UsageError("--offsets and --byte-offsets do not go together: give one");
  a.request.text.offsets = a.offsets        ? tokenizers::OffsetUnit::kCodePoints
                           : a.byte_offsets ? tokenizers::OffsetUnit::kBytes
                                            : tokenizers::OffsetUnit::kNone;
  const TokenizeRequest& r = a.request;
  if (a.json && r.output.empty())
    throw phasor::UsageError("--json needs --output (without it the ids go to stdout)");
  JobEvents events;
  events.warning = [](const std::string& w) { std::cerr << "phasor: warning: " << w << "\n"; };
  events.wrote = [](const std::string& path, const std::string& what) { ReportWrote(path, what); };
  const TokenizeResult res = RunTokenize(r, events, [](const std::string& text) {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size())
      throw phasor::Error("cannot write to stdout");
  });
  if (a.json) {
    nlohmann::json j = {{"tokenizer", res.tokenizer},
                        {"lines", res.lines},
                        {"tokens", res.tokens},
                        {"bytes", res.bytes},
                        {"threads", NumThreads()},
                        {"seconds", res.seconds},
                        {"load_seconds", res.load_seconds},
                        {"tokenize_seconds", res.tokenize_seconds},
                        {"mb_per_s", res.seconds > 0 ? res.bytes / res.seconds / 1e6 : 0.0}};
    std::cout << j.dump() << "\n";
  }
}

}  // namespace

void AddTokenizeCommand(CLI::App& app) {
  auto args = std::make_shared<TokenizeArgs>();
  TokenizeRequest& r = args->request;
  CLI::App* cmd = app.add_subcommand(
      "tokenize", "Text to token ids with the model's own tokenizer, one line of ids a line");
  cmd->add_option("--model", r.model,
                  "Folder with the tokenizer: tokenizer.json (+ tokenizer_config.json), "
                  "vocab.txt, vocab.json + merges.txt, sentencepiece.bpe.model or source.spm + "
                  "vocab.json")
      ->required();
  cmd->add_option("--text-file", r.text_file,
                  "UTF-8 text, one text a line (or JSON lines, CSV, TSV: --jsonl-field, "
                  "--csv-column); '-' (or a pipe, /dev/stdin, <(...)): standard input")
      ->required();
  AddTextFormatOptions(cmd, r.text, "");
  cmd->add_option("--output", r.output,
                  "FILE for the ids, one line a line, as encode --tokens-file reads them "
                  "(default: stdout)");
  cmd->add_flag("--pairs", r.text.pairs,
                "Each line is text_a<TAB>text_b; a tab in the output marks where the second "
                "text's ids begin");
  cmd->add_flag("--no-special", r.text.no_special,
                "Leave out the special tokens ([CLS], [SEP], ...)");
  AddTruncateFlags(
      cmd, args->truncate,
      "Cut a longer text to its first tokens (special tokens included; a pair longest first) "
      "at the least of the tokenizer's model_max_length (tokenizer_config.json) and a "
      "sentence-transformers folder's max_seq_length (sentence_bert_config.json), as "
      "sentence-transformers cuts (the default for a sentence-transformers folder)");
  cmd->add_option("--max-length", r.text.max_length,
                  "Cut each text to N ids instead of the folder's limit (0: the folder's)");
  cmd->add_option("--invalid-utf8", r.text.invalid_utf8,
                  "error (name the line and byte) or replace (U+FFFD, as Python's "
                  "errors=\"replace\")")
      ->capture_default_str();
  cmd->add_option("--prompt", r.text.prompt,
                  "A prompt's name in config_sentence_transformers.json, put before each text");
  cmd->add_option("--prefix", r.text.prefix, "Text put before each text (e.g. \"query: \")");
  cmd->add_option("--threads", r.threads, "Threads (0: OMP_NUM_THREADS if set, else all cores)");
  cmd->add_flag("--offsets", args->offsets,
                "One JSON line a text instead: {\"ids\", \"offsets\" (each token's [begin, "
                "end) in code points of its text, [0, 0] for special tokens), \"special\", "
                "\"pair_start\" for a pair}, as the tokenizers library's offsets");
  cmd->add_flag("--byte-offsets", args->byte_offsets,
                "As --offsets, the spans in bytes of the UTF-8 text");
  cmd->add_flag(
      "--json", args->json,
      "Print one JSON object (lines, tokens, bytes, seconds, load_seconds, tokenize_seconds)");
  cmd->callback([args] { RunTokenizeCommand(*args); });
}

}  // namespace phasor::cli

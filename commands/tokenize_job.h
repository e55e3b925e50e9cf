// `phasor tokenize` as a library call: reads a text file line by line, block
// by block, tokenizes each block's lines on the worker threads with the
// model's own tokenizer and writes one line of ids per input line in the
// tokens-file format `encode --tokens-file` reads.
//
//   TokenizeRequest r;
//   r.model = "all-MiniLM-L6-v2"; r.text_file = "lines.txt"; r.output = "ids.txt";
//   TokenizeResult res = RunTokenize(r, events);
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "commands/job_events.h"
#include "models/length_rule.h"
#include "models/text_input.h"
#include "models/text_source.h"

namespace phasor {

// How a command reads text, as its options say it (tokenize, encode --text-file).
struct TextRequest {
  bool pairs = false;       // text_a<TAB>text_b a line (or two fields / columns)
  bool no_special = false;  // no [CLS]/[SEP] (or <s>, </s>, ...)
  // Cut each text at the length rule's limit (models/length_rule.h):
  // nullopt: the folder's default (on for a sentence-transformers folder).
  std::optional<bool> truncate;
  // Truncation off: a longer text is an Error naming it (the CLI); false
  // lets it through uncut (Python's tokenize).
  bool refuse_too_long = false;
  int64_t max_length = 0;              // cut each text to this instead (0: the rule's)
  std::string invalid_utf8 = "error";  // or "replace"
  std::string prompt;                  // a prompt's name in config_sentence_transformers.json
  std::string prefix;                  // text put before each text
  std::string jsonl_field;             // JSON lines: the field ("a,b" with pairs)
  std::string csv_column;              // CSV/TSV: the column ("a,b" with pairs)
  // tokenize only: one JSON line a text with each token's span, in code
  // points (--offsets) or bytes (--byte-offsets).
  tokenizers::OffsetUnit offsets = tokenizers::OffsetUnit::kNone;
};

struct TokenizeRequest {
  std::string model;      // a folder with the tokenizer's files
  std::string text_file;  // one text (or text_a<TAB>text_b) a line; "-": standard input
  std::string output;     // "": to the caller's sink (stdout in the CLI)
  TextRequest text;
  int64_t threads = 0;  // 0: OMP_NUM_THREADS if set, else all cores
};

// The length rule text read as r follows: ResolveLengthRule(folder,
// &tokenizer, model_limit, model_limit_of, r.truncate); with r.max_length
// (--max-length N) its limit instead, named "--max-length N", truncation on.
// model_limit: the model's positions if positive; 0 or negative: none known
// (tokenize reads no model). UsageError for --max-length with truncation off.
LengthRule TextLengthRule(const ModelFolder* folder, const TextRequest& r,
                          const tokenizers::Tokenizer& tokenizer, int64_t model_limit,
                          const std::string& model_limit_of = "the model's positions");

// The text options a request asks for (prefix, pairs, truncation, UTF-8),
// shared with `encode --text-file`: max_length the TextLengthRule's limit when
// it truncates; refuse it when it does not and r.refuse_too_long. With
// model_limit negative, an explicit truncate needs a limit (UsageError
// without). Throws UsageError for bad values; Error (naming the file) for a
// prompt the folder does not have (ModelFolder::Prompt).
TextOptions TextOptionsOf(const ModelFolder* folder, const TextRequest& r,
                          const tokenizers::Tokenizer& tokenizer, int64_t model_limit,
                          const std::string& model_limit_of = "the model's positions");

// Where r reads text from: path, and the field or columns r names.
// UsageError for both --jsonl-field and --csv-column, or names that do not
// fit r.pairs.
TextSource TextSourceOf(const std::string& path, const TextRequest& r);

struct TokenizeResult {
  std::string tokenizer;  // what was read: "tokenizer.json", "vocab.txt (WordPiece)"
  int64_t lines = 0;
  int64_t tokens = 0;  // ids written
  int64_t bytes = 0;   // of text read
  // The whole run; of it, opening the folder and loading the tokenizer, then
  // reading, tokenizing and writing the text (up to the output's commit,
  // whose fsync is the rest).
  double seconds = 0;
  double load_seconds = 0;
  double tokenize_seconds = 0;
};

// Runs the request. sink receives the output text block by block when
// r.output is empty; otherwise the file is written through OutputFile (whole
// or not at all). Throws UsageError / Error with the CLI's messages.
TokenizeResult RunTokenize(const TokenizeRequest& r, const JobEvents& events,
                           const std::function<void(const std::string&)>& sink);

}  // namespace phasor

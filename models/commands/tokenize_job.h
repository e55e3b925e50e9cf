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
#include <string>

#include "models/commands/job_events.h"
#include "models/text_input.h"

namespace phasor {

// How a command reads text, as its options say it (tokenize, encode --text-file).
struct TextRequest {
  bool pairs = false;                  // text_a<TAB>text_b a line
  bool no_special = false;             // no [CLS]/[SEP] (or <s>, </s>, ...)
  bool truncate = false;               // cut each line (TextOptionsOf says to what)
  int64_t max_length = 0;              // cut each line to this (0: none, or --truncate's)
  std::string invalid_utf8 = "error";  // or "replace"
  std::string prompt;                  // a prompt's name in config_sentence_transformers.json
  std::string prefix;                  // text put before each line
};

struct TokenizeRequest {
  std::string model;      // a folder with the tokenizer's files
  std::string text_file;  // one text (or text_a<TAB>text_b) a line
  std::string output;     // "": to the caller's sink (stdout in the CLI)
  TextRequest text;
  int64_t threads = 0;  // 0: OMP_NUM_THREADS if set, else all cores
};

// The text options a request asks for (prefix, pairs, truncation, UTF-8),
// shared with `encode --text-file`. --truncate cuts to the least of the
// tokenizer's model_max_length, a sentence-transformers folder's
// max_seq_length (sentence_bert_config.json) and model_limit if positive (the
// model's positions); with model_limit negative, truncate needs one of the
// first two (UsageError without); 0: no bound from the model. Throws
// UsageError for bad values.
TextOptions TextOptionsOf(const std::string& model, const TextRequest& r,
                          const tokenizers::Tokenizer& tokenizer, int64_t model_limit);

struct TokenizeResult {
  std::string tokenizer;  // what was read: "tokenizer.json", "vocab.txt (WordPiece)"
  int64_t lines = 0;
  int64_t tokens = 0;  // ids written
  int64_t bytes = 0;   // of text read
  double seconds = 0;  // loading the tokenizer included
};

// Runs the request. sink receives the output text block by block when
// r.output is empty; otherwise the file is written through OutputFile (whole
// or not at all). Throws UsageError / Error with the CLI's messages.
TokenizeResult RunTokenize(const TokenizeRequest& r, const JobEvents& events,
                           const std::function<void(const std::string&)>& sink);

}  // namespace phasor

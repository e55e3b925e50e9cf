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

struct TokenizeRequest {
  std::string model;      // a folder with the tokenizer's files
  std::string text_file;  // one text (or text_a<TAB>text_b) a line
  std::string output;     // "": to the caller's sink (stdout in the CLI)
  bool pairs = false;
  bool no_special = false;             // no [CLS]/[SEP] (or <s>, </s>, ...)
  bool truncate = false;               // cut each line to the tokenizer's model_max_length
  int64_t max_length = 0;              // cut each line to this (0: none, or --truncate's)
  std::string invalid_utf8 = "error";  // or "replace"
  std::string prompt;                  // a prompt's name in config_sentence_transformers.json
  std::string prefix;                  // text put before each line
  int64_t threads = 0;                 // 0: OMP_NUM_THREADS if set, else all cores
};

// The text options a request asks for (prefix, pairs, truncation, UTF-8),
// shared with `encode --text-file`. --truncate cuts to the tokenizer's
// model_max_length, a sentence-transformers folder's max_seq_length
// (sentence_bert_config.json) and model_limit, whichever is least. model_limit, if positive, also
// bounds
// --truncate (the model's positions); negative: truncate needs the
// tokenizer's model_max_length (UsageError without it); 0: no bound, no cut.
// Throws UsageError for bad values.
TextOptions TextOptionsOf(const std::string& model, bool pairs, bool no_special, bool truncate,
                          int64_t max_length, const std::string& invalid_utf8,
                          const std::string& prompt, const std::string& prefix,
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

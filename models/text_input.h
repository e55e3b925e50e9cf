// Text as `encode --text-file` and `tokenize` read it: one text (or, with
// pairs, text_a<TAB>text_b) a line, each line's ids from the model's own
// tokenizer (tokenizers/tokenizer.h), tokenized on the worker threads.
//
// A line ends at '\n' (a '\r' before it is dropped, so CRLF files read as
// their LF twins); a last line without '\n' is a line; every line is a text,
// an empty one too (it gives what the tokenizer gives for "": [CLS] [SEP]).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/length_rule.h"
#include "models/tokens.h"
#include "tokenizers/tokenizer.h"

namespace phasor {

struct TextOptions {
  bool pairs = false;  // each line is text_a<TAB>text_b
  bool add_special_tokens = true;
  // 0: none. Otherwise each line's ids (special tokens included) are cut to
  // it, a pair's by Hugging Face's longest_first.
  int64_t max_length = 0;
  // Invalid UTF-8: an Error naming the line and byte (false), or each
  // ill-formed part read as U+FFFD, as Python's errors="replace" (true).
  bool replace_invalid_utf8 = false;
  std::string prefix;  // put before each text (a pair's text_a): a prompt
  // With max_length 0 and refuse.limit > 0: a text of more ids than
  // refuse.limit is an Error naming it, its length, the limit and where the
  // limit comes from (TooLongMessage; the CLI's --no-truncate).
  LengthRule refuse;
  // Each token's span too (TokenizedLines::spans), in this unit; kNone: none.
  // They are spans of the text the tokenizer saw: the prefix included, and
  // with replace_invalid_utf8 the text with its U+FFFD.
  tokenizers::OffsetUnit offsets = tokenizers::OffsetUnit::kNone;
};

// The ids of some lines, one sequence a line, in the tokens-file layout.
struct TokenizedLines {
  TokenBatch batch;  // types empty unless options.pairs
  // [batch.batch] where each line's second text begins (Encoding::pair_start),
  // -1 for single texts.
  std::vector<int64_t> pair_starts;
  // With TextOptions::offsets, else empty: [batch.ids.size()] each id's span
  // (Encoding::offsets) and whether the post-processor added it (special).
  std::vector<std::pair<int64_t, int64_t>> spans;
  std::vector<uint8_t> special;
};

// Tokenizes the lines of text (whole lines; line numbers from first_line).
// source names the input in messages. Throws Error "SOURCE: line L, byte
// offset B: invalid UTF-8 (byte 0xNN); ..." for invalid UTF-8 (unless
// replaced), "SOURCE: line L: expected text_a<TAB>text_b, found no tab" or
// "... a second tab" with pairs.
TokenizedLines TokenizeLines(const tokenizers::Tokenizer& tokenizer, std::string_view text,
                             int64_t first_line, const std::string& source,
                             const TextOptions& options);

// Tokenizes texts a (and, for pairs, b: as many) on the worker threads, as
// TokenizeLines tokenizes lines (options.pairs is ignored: b decides). name(i)
// names text i in messages ("text 3"); texts may hold any character.
TokenizedLines TokenizeTexts(const tokenizers::Tokenizer& tokenizer,
                             const std::vector<std::string_view>& a,
                             const std::vector<std::string_view>* b, const TextOptions& options,
                             const std::function<std::string(int64_t)>& name);

// Reads the file at path ("-": standard input; a pipe, /dev/stdin or <(...)
// reads as a file) block by block, each of whole lines and about block_bytes
// (more only for a longer line), calling fn(block, first_line) in order:
// memory stays bounded by the block and the longest line. Error naming the
// file if it cannot be read.
void ForEachLineBlock(const std::string& path, size_t block_bytes,
                      const std::function<void(std::string_view, int64_t)>& fn);

// Line i of lines in the tokens-file format: ids separated by spaces, a tab
// before the id where the second text of a pair begins; appended to out.
void AppendTokensLine(const TokenizedLines& lines, int64_t i, std::string& out);
// Line i as one JSON object on a line (`tokenize --offsets`):
// {"ids": [...], "offsets": [[begin, end], ...], "special": [0|1, ...]},
// with "pair_start" (the index where the second text's ids begin) for a pair.
void AppendOffsetsLine(const TokenizedLines& lines, int64_t i, std::string& out);

}  // namespace phasor

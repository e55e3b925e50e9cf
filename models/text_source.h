// Where text comes from for `encode --text-file` and `tokenize`: a file of
// one text a line, one field of JSON lines (--jsonl-field) or one column of
// CSV/TSV rows (--csv-column), read block by block from a file, a pipe or
// standard input ("-"), and tokenized on the worker threads.
//
//   TextSource s;
//   s.path = "rows.csv"; s.columns = {"question", "answer"};  // a pair a row
//   ForEachTokenizedBlock(tokenizer, s, options, 8 << 20,
//                         [&](const TokenizedLines& lines, size_t bytes) { ... });
//
// JSON lines: every line is one JSON object (an empty line is an error), the
// field a string. CSV: RFC 4180 (a field in double quotes may hold the
// delimiter, a newline and "" for a quote; CRLF or LF line ends); the first row
// is the header, columns are found by name; empty lines are skipped; every
// row has the header's number of fields. The delimiter: a tab for .tsv, a
// comma for .csv, otherwise the header line's first of tab, comma and
// semicolon. Messages name the file, the physical line a record begins on
// and the field or column.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/text_input.h"

namespace phasor {

struct TextSource {
  std::string path;                  // "-": standard input
  std::vector<std::string> fields;   // JSON lines: the field (two for pairs)
  std::vector<std::string> columns;  // CSV/TSV: the column (two for pairs)
};

// The input as messages name it: "standard input" for "-", else the path.
std::string SourceName(const std::string& path);

// Reads source block by block (about block_bytes of input each, whole
// records), tokenizes each block's texts with options (options.pairs: each
// line is text_a<TAB>text_b, for a plain text file; two fields or columns
// give pairs whatever options.pairs says) and calls fn(lines, bytes read) in
// order; lines.batch.lines holds each record's physical line number. Throws
// Error naming file, line (and field or column, or byte offset for invalid
// UTF-8) for bad input.
void ForEachTokenizedBlock(const tokenizers::Tokenizer& tokenizer, const TextSource& source,
                           const TextOptions& options, size_t block_bytes,
                           const std::function<void(const TokenizedLines&, size_t)>& fn);

// A warning for a .csv/.tsv file read as plain lines (neither fields nor
// columns given): its header and every column would be embedded as text.
// Empty otherwise.
std::string CsvReadAsLinesWarning(const TextSource& source);

// The names of an option's value: "a,b" -> {"a", "b"}; UsageError naming the
// option unless it holds one name, or two with pairs (and one without).
std::vector<std::string> ParseFieldNames(const std::string& option, const std::string& value,
                                         bool pairs);

}  // namespace phasor

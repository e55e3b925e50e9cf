// CSV and TSV rows as models/text_source.h reads them: RFC 4180 (a field in
// double quotes may hold the delimiter, newlines and "" for a quote), the
// first row the header, columns found by name, rows arriving block by block.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace phasor {

// The texts of some records and the physical line each begins on.
struct TextRecords {
  std::vector<std::string> a, b;  // b: the second texts of pairs, else empty
  std::vector<int64_t> lines;
};

class CsvRows {
 public:
  // columns: the one or two columns to read; path decides the delimiter (a tab
  // for .tsv, a comma for .csv, otherwise sniffed from the header line); name
  // names the input in messages.
  CsvRows(std::vector<std::string> columns, const std::string& path, std::string name);

  // Appends the rows of text (whole lines, the first numbered first_line) to
  // out; a record whose quoted field is still open at the end waits for the
  // next call. at_end: the input has ended (text may be empty). Throws Error
  // naming the line and column: a missing column, a row with another number
  // of fields than the header, a quote closed before other characters, a
  // quote never closed, no header at all.
  void Read(std::string_view text, int64_t first_line, bool at_end, TextRecords& out);

 private:
  void Header(const std::vector<std::string>& fields, int64_t line);
  void Row(const std::vector<std::string>& fields, int64_t line, TextRecords& out) const;

  std::vector<std::string> columns_;
  std::string path_, name_;
  char delimiter_ = 0;  // 0: sniffed from the header line
  bool have_header_ = false;
  size_t width_ = 0;           // the header's fields
  std::vector<size_t> index_;  // of each column asked for
  std::string pending_;        // a record begun in an earlier call
  int64_t pending_line_ = 0;
};

}  // namespace phasor

#include "models/csv_rows.h"

#include "engine/error.h"
#include "engine/json_text.h"

namespace phasor {
namespace {

bool EndsWith(const std::string& s, const char* end) {
  const std::string e(end);
  return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
}

enum class Parsed { kRecord, kBlank, kIncomplete };

// One record read off the text: its fields, the newlines it spans (its own
// line end included), or why it is malformed.
struct Record {
  std::vector<std::string> fields;
  int64_t newlines = 0;
  std::string error;
};

constexpr size_t kUnclosed = std::string_view::npos;

// The quoted field opening at text[i] (a '"') into field, its doubled quotes
// read as one: the index after its closing quote, or kUnclosed if the text
// ends inside it. Newlines inside it are counted into newlines.
size_t QuotedField(std::string_view text, size_t i, std::string& field, int64_t& newlines) {
  for (++i; i < text.size(); ++i) {
    if (text[i] == '"') {
      if (i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
        continue;
      }
      return i + 1;
    }
    newlines += text[i] == '\n';
    field += text[i];
  }
  return kUnclosed;
}

// One record of text from pos into r. kIncomplete (pos unchanged) when text
// ends inside a quoted field and more may come; r.error set for a malformed
// record.
Parsed ParseRecord(std::string_view text, size_t& pos, char delim, bool at_end, Record& r) {
  const size_t n = text.size();
  size_t i = pos;
  r.fields.clear();
  r.newlines = 0;
  if (text[i] == '\n' || (text[i] == '\r' && i + 1 < n && text[i + 1] == '\n')) {
    pos = i + (text[i] == '\r' ? 2 : 1);
    r.newlines = 1;
    return Parsed::kBlank;
  }
  std::string field;
  while (true) {
    field.clear();
    if (i < n && text[i] == '"') {
      i = QuotedField(text, i, field, r.newlines);
      if (i == kUnclosed) {
        if (!at_end) return Parsed::kIncomplete;
        r.error = "a quoted field is never closed (a quote inside one is written \"\")";
        return Parsed::kRecord;
      }
      if (i < n && text[i] == '\r' && i + 1 < n && text[i + 1] == '\n') ++i;
      if (i < n && text[i] != delim && text[i] != '\n') {
        r.error =
            "characters after a closing quote (quote the whole field, and write a quote "
            "inside it as \"\")";
        return Parsed::kRecord;
      }
    } else {
      size_t e = i;
      while (e < n && text[e] != delim && text[e] != '\n') ++e;
      size_t stop = e;
      if (e < n && text[e] == '\n' && stop > i && text[stop - 1] == '\r') --stop;
      field.assign(text.substr(i, stop - i));
      i = e;
    }
    r.fields.push_back(field);
    if (i < n && text[i] == delim) {
      ++i;
      continue;
    }
    if (i < n) {  // the record's line end
      ++i;
      ++r.newlines;
    }
    pos = i;
    return Parsed::kRecord;
  }
}

std::string List(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + json_text::Quote(n, 60);
  return s;
}

}  // namespace

CsvRows::CsvRows(std::vector<std::string> columns, const std::string& path, std::string name)
    : columns_(std::move(columns)), path_(path), name_(std::move(name)) {
  if (EndsWith(path, ".tsv") || EndsWith(path, ".TSV")) delimiter_ = '\t';
  if (EndsWith(path, ".csv") || EndsWith(path, ".CSV")) delimiter_ = ',';
}

void CsvRows::Header(const std::vector<std::string>& fields, int64_t line) {
  have_header_ = true;
  width_ = fields.size();
  for (const std::string& c : columns_) {
    size_t k = 0;
    while (k < fields.size() && fields[k] != c) ++k;
    if (k == fields.size()) {
      throw Error(name_ + ": line " + std::to_string(line) + " (the header): no column " +
                  json_text::Quote(c, 60) + "; it has " + List(fields));
    }
    index_.push_back(k);
  }
}

void CsvRows::Row(const std::vector<std::string>& fields, int64_t line, TextRecords& out) const {
  if (fields.size() != width_) {
    throw Error(name_ + ": line " + std::to_string(line) + ": " + std::to_string(fields.size()) +
                " fields, the header has " + std::to_string(width_) +
                " (a field that holds the delimiter or a newline must be quoted)");
  }
  out.a.push_back(fields[index_[0]]);
  if (index_.size() > 1) out.b.push_back(fields[index_[1]]);
  out.lines.push_back(line);
}

void CsvRows::Read(std::string_view text, int64_t first_line, bool at_end, TextRecords& out) {
  if (pending_.empty()) pending_line_ = first_line;
  pending_.append(text);
  // A byte order mark (as spreadsheets write UTF-8 CSV) is not the first column's name.
  if (!have_header_ && pending_.compare(0, 3, "\xEF\xBB\xBF") == 0) pending_.erase(0, 3);
  if (delimiter_ == 0 && !pending_.empty()) {  // the header line's first of tab, comma, ';'
    const std::string_view head = std::string_view(pending_).substr(0, pending_.find('\n'));
    delimiter_ = head.find('\t') != std::string_view::npos  ? '\t'
                 : head.find(',') != std::string_view::npos ? ','
                 : head.find(';') != std::string_view::npos ? ';'
                                                            : ',';
  }
  Record r;
  size_t pos = 0;
  int64_t line = pending_line_;
  while (pos < pending_.size()) {
    const Parsed p = ParseRecord(pending_, pos, delimiter_, at_end, r);
    if (p == Parsed::kIncomplete) break;
    if (!r.error.empty()) throw Error(name_ + ": line " + std::to_string(line) + ": " + r.error);
    if (p == Parsed::kRecord) {
      if (!have_header_) {
        Header(r.fields, line);
      } else {
        Row(r.fields, line, out);
      }
    }
    line += r.newlines;
  }
  pending_.erase(0, pos);
  pending_line_ = line;
  if (at_end && !have_header_) throw Error(name_ + ": no header row: the input is empty");
}

}  // namespace phasor

#include "models/text_source.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>

#include "engine/error.h"
#include "engine/json_text.h"
#include "models/csv_rows.h"
#include "tokenizers/utf8.h"

namespace phasor {
namespace {

bool EndsWith(const std::string& s, const std::string& end) {
  return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

// Invalid UTF-8 in text (whole lines from first_line): an Error naming the
// line and the byte's offset in it, or with replace each ill-formed part
// made U+FFFD in place (the structure's bytes are ASCII, so parsing after
// is unchanged).
void CheckUtf8(std::string& text, int64_t first_line, const std::string& name, bool replace) {
  const size_t bad = tokenizers::FindInvalidUtf8(text);
  if (bad == std::string::npos) return;
  if (replace) {
    text = tokenizers::ReplaceInvalidUtf8(text);
    return;
  }
  const size_t line_start = bad == 0 ? 0 : text.rfind('\n', bad - 1);
  const size_t begin = line_start == std::string::npos || bad == 0 ? 0 : line_start + 1;
  const int64_t line = first_line + std::count(text.begin(), text.begin() + begin, '\n');
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(text[bad]));
  throw Error(name + ": line " + std::to_string(line) + ", byte offset " +
              std::to_string(bad - begin) + ": invalid UTF-8 (byte " + byte +
              "); give --invalid-utf8 replace to read it as U+FFFD");
}

std::string Quoted(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "'" : ", '") + n + "'";
  return s;
}

// One JSON line's fields into out; at names the line.
void ReadJsonLine(std::string_view line, const std::vector<std::string>& fields,
                  const std::string& at, TextRecords& out) {
  if (line.empty()) throw Error(at + ": expected a JSON object, found an empty line");
  nlohmann::json j;
  try {
    j = json_text::ParseStrictJson(std::string(line));
  } catch (const json_text::StructureError& e) {
    throw Error(at + ": " + e.message);
  } catch (const nlohmann::json::exception& e) {
    throw Error(at + ": not valid JSON: " + json_text::Printable(e.what(), 200));
  }
  if (!j.is_object()) throw Error(at + ": expected a JSON object, found " + json_text::Found(j));
  for (size_t k = 0; k < fields.size(); ++k) {
    const auto it = j.find(fields[k]);
    if (it == j.end()) throw Error(at + ": no field '" + fields[k] + "'");
    if (!it->is_string()) {
      throw Error(at + ", field '" + fields[k] + "': expected a string, found " +
                  json_text::Found(*it));
    }
    (k == 0 ? out.a : out.b).push_back(it->get<std::string>());
  }
}

// A block of whole JSON lines from first_line.
TextRecords ReadJsonLines(std::string_view text, int64_t first_line, const TextSource& source,
                          const std::string& name) {
  TextRecords out;
  size_t begin = 0;
  int64_t number = first_line;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    size_t stop = end;
    if (stop > begin && text[stop - 1] == '\r') --stop;
    ReadJsonLine(text.substr(begin, stop - begin), source.fields,
                 name + ": line " + std::to_string(number), out);
    out.lines.push_back(number++);
    begin = end + 1;
  }
  return out;
}

}  // namespace

std::string SourceName(const std::string& path) {
  return path == "-" ? std::string("standard input") : path;
}

std::string CsvReadAsLinesWarning(const TextSource& source) {
  if (!source.fields.empty() || !source.columns.empty()) return "";
  const std::string& p = source.path;
  if (!EndsWith(p, ".csv") && !EndsWith(p, ".tsv") && !EndsWith(p, ".CSV") && !EndsWith(p, ".TSV"))
    return "";
  return p +
         " is read as plain text, one text a line: its header and every column are embedded "
         "as text; give --csv-column NAME to read one column";
}

std::vector<std::string> ParseFieldNames(const std::string& option, const std::string& value,
                                         bool pairs) {
  std::vector<std::string> names;
  if (!pairs) {
    names.push_back(value);
  } else {
    const size_t comma = value.find(',');
    if (comma == std::string::npos || value.find(',', comma + 1) != std::string::npos) {
      throw UsageError(option + " with --pairs takes two names, the first and the second text: " +
                       option + " a,b (got '" + value + "')");
    }
    names = {value.substr(0, comma), value.substr(comma + 1)};
  }
  for (const std::string& n : names)
    if (n.empty()) throw UsageError(option + ": an empty name in '" + value + "'");
  return names;
}

void ForEachTokenizedBlock(const tokenizers::Tokenizer& tokenizer, const TextSource& source,
                           const TextOptions& options, size_t block_bytes,
                           const std::function<void(const TokenizedLines&, size_t)>& fn) {
  const std::string name = SourceName(source.path);
  const bool csv = !source.columns.empty(), jsonl = !source.fields.empty();
  std::unique_ptr<CsvRows> rows;
  if (csv) rows = std::make_unique<CsvRows>(source.columns, source.path, name);
  const auto tokenize = [&](TextRecords& r, size_t bytes) {
    if (r.a.empty()) return;
    const std::vector<std::string>& names = csv ? source.columns : source.fields;
    const std::string what = csv ? (names.size() > 1 ? "columns " : "column ")
                                 : (names.size() > 1 ? "fields " : "field ");
    const std::vector<std::string_view> a(r.a.begin(), r.a.end()), b(r.b.begin(), r.b.end());
    TokenizedLines lines =
        TokenizeTexts(tokenizer, a, names.size() > 1 ? &b : nullptr, options, [&](int64_t i) {
          return name + ": line " + std::to_string(r.lines[i]) + ", " + what + Quoted(names);
        });
    lines.batch.lines = r.lines;
    fn(lines, bytes);
  };
  ForEachLineBlock(source.path, block_bytes, [&](std::string_view block, int64_t first) {
    if (!csv && !jsonl) {
      fn(TokenizeLines(tokenizer, block, first, name, options), block.size());
      return;
    }
    std::string text(block);
    CheckUtf8(text, first, name, options.replace_invalid_utf8);
    TextRecords r;
    if (jsonl) {
      r = ReadJsonLines(text, first, source, name);
    } else {
      rows->Read(text, first, false, r);
    }
    tokenize(r, block.size());
  });
  if (csv) {
    TextRecords r;
    rows->Read("", 0, true, r);
    tokenize(r, 0);
  }
}

}  // namespace phasor

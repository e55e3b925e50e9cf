#include "models/text_input.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "engine/error.h"
#include "engine/json_text.h"
#include "engine/parallel.h"
#include "tokenizers/utf8.h"

namespace phasor {
namespace {

// One text to tokenize: a line (split at its tab for pairs), or a text and
// its pair given apart.
struct Line {
  std::string_view text;
  int64_t number = 0;
  std::string_view pair;  // given apart (has_pair)
  bool has_pair = false;
};

std::vector<Line> SplitLines(std::string_view text, int64_t first_line) {
  std::vector<Line> lines;
  size_t begin = 0;
  int64_t number = first_line;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    const size_t next = end == std::string_view::npos ? text.size() : end + 1;
    if (end == std::string_view::npos) end = text.size();
    size_t stop = end;
    if (stop > begin && text[stop - 1] == '\r') --stop;
    Line line;
    line.text = text.substr(begin, stop - begin);
    line.number = number++;
    lines.push_back(line);
    begin = next;
  }
  return lines;
}

std::string Hex(unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", b);
  return buf;
}

// Tokenizes one line into enc, whose buffers are reused; a message instead of
// a throw (tasks must not throw). at() names the line in messages (built only
// for one).
template <class At>
std::string TokenizeLine(const tokenizers::Tokenizer& tok, const Line& line, const At& at,
                         const TextOptions& o, tokenizers::Encoding& enc) {
  std::string_view text = line.text;
  std::string replaced;
  const size_t bad = tokenizers::FindInvalidUtf8(text);
  if (bad != std::string_view::npos) {
    if (!o.replace_invalid_utf8) {
      return at() + ", byte offset " + std::to_string(bad) + ": invalid UTF-8 (byte " +
             Hex(static_cast<unsigned char>(text[bad])) +
             "); give --invalid-utf8 replace to read it as U+FFFD";
    }
    replaced = tokenizers::ReplaceInvalidUtf8(text);
    text = replaced;
  }
  tokenizers::TokenizeOptions to;
  to.add_special_tokens = o.add_special_tokens;
  to.max_length = o.max_length;
  to.offsets = o.offsets;
  try {
    if (line.has_pair) {
      tok.EncodePair(o.prefix + std::string(text), line.pair, to, enc);
    } else if (o.pairs) {
      const size_t tab = text.find('\t');
      if (tab == std::string_view::npos) return at() + ": expected text_a<TAB>text_b, found no tab";
      if (text.find('\t', tab + 1) != std::string_view::npos)
        return at() + ": expected text_a<TAB>text_b, found a second tab";
      if (o.prefix.empty()) {
        tok.EncodePair(text.substr(0, tab), text.substr(tab + 1), to, enc);
      } else {
        tok.EncodePair(o.prefix + std::string(text.substr(0, tab)), text.substr(tab + 1), to, enc);
      }
    } else if (o.prefix.empty()) {
      tok.Encode(text, to, enc);
    } else {
      tok.Encode(o.prefix + std::string(text), to, enc);
    }
  } catch (const Error& e) {
    return at() + ": " + e.what();
  }
  const auto n = static_cast<int64_t>(enc.ids.size());
  if (o.max_length == 0 && o.refuse.limit > 0 && n > o.refuse.limit) {
    return TooLongMessage(at(), n, o.refuse,
                          "give --truncate to cut it to its first " +
                              std::to_string(o.refuse.limit) + " (as sentence-transformers does)");
  }
  return "";
}

// Tokenizes lines on the worker threads; name(i) names line i in messages.
TokenizedLines TokenizeAll(const tokenizers::Tokenizer& tokenizer, const std::vector<Line>& lines,
                           const TextOptions& options,
                           const std::function<std::string(int64_t)>& name) {
  const auto n = static_cast<int64_t>(lines.size());
  // Lines in tasks of about 64 KB of text, so that threads share long files
  // evenly and short ones still split.
  std::vector<int64_t> task_begin{0};
  size_t bytes = 0;
  for (int64_t i = 0; i < n; ++i) {
    bytes += lines[i].text.size() + 1;
    if (bytes >= (64u << 10)) {
      task_begin.push_back(i + 1);
      bytes = 0;
    }
  }
  if (task_begin.back() != n) task_begin.push_back(n);
  const auto tasks = static_cast<int64_t>(task_begin.size()) - 1;
  // Each task's lines back to back, put together in order below: no
  // allocation per line.
  struct TaskOutput {
    std::vector<int32_t> ids, types;
    std::vector<int64_t> lengths, pair_starts;
    std::vector<std::pair<int64_t, int64_t>> spans;
    std::vector<uint8_t> special;
    std::string error;  // the task's first, naming its line
  };
  std::vector<TaskOutput> outputs(static_cast<size_t>(tasks));
  const bool pairs = options.pairs || (!lines.empty() && lines[0].has_pair);
  ParallelTasks(tasks, 0, [&](int64_t task, int) {
    TaskOutput& t = outputs[static_cast<size_t>(task)];
    thread_local tokenizers::Encoding enc;  // reused line after line
    const auto lines_here = static_cast<size_t>(task_begin[task + 1] - task_begin[task]);
    t.lengths.reserve(lines_here);
    t.pair_starts.reserve(lines_here);
    for (int64_t i = task_begin[task]; i < task_begin[task + 1]; ++i) {
      t.error = TokenizeLine(
          tokenizer, lines[i], [&] { return name(i); }, options, enc);
      if (!t.error.empty()) return;
      t.ids.insert(t.ids.end(), enc.ids.begin(), enc.ids.end());
      if (pairs) t.types.insert(t.types.end(), enc.types.begin(), enc.types.end());
      t.lengths.push_back(static_cast<int64_t>(enc.ids.size()));
      t.pair_starts.push_back(enc.pair_start);
      t.spans.insert(t.spans.end(), enc.offsets.begin(), enc.offsets.end());
      t.special.insert(t.special.end(), enc.special.begin(), enc.special.end());
    }
  });
  for (const TaskOutput& t : outputs)
    if (!t.error.empty()) throw Error(t.error);

  TokenizedLines out;
  TokenBatch& b = out.batch;
  b.batch = n;
  size_t total = 0, spans = 0;
  for (const TaskOutput& t : outputs) {
    total += t.ids.size();
    spans += t.spans.size();
  }
  b.ids.reserve(total);
  if (pairs) b.types.reserve(total);
  b.offsets.reserve(static_cast<size_t>(n) + 1);
  b.lengths.reserve(static_cast<size_t>(n));
  b.lines.reserve(static_cast<size_t>(n));
  out.pair_starts.reserve(static_cast<size_t>(n));
  out.spans.reserve(spans);
  out.special.reserve(spans);
  b.offsets.push_back(0);
  for (const TaskOutput& t : outputs) {
    b.ids.insert(b.ids.end(), t.ids.begin(), t.ids.end());
    b.types.insert(b.types.end(), t.types.begin(), t.types.end());
    for (const int64_t len : t.lengths) {
      b.offsets.push_back(b.offsets.back() + len);
      b.lengths.push_back(len);
      b.seq = std::max(b.seq, len);
    }
    out.pair_starts.insert(out.pair_starts.end(), t.pair_starts.begin(), t.pair_starts.end());
    out.spans.insert(out.spans.end(), t.spans.begin(), t.spans.end());
    out.special.insert(out.special.end(), t.special.begin(), t.special.end());
  }
  for (const Line& line : lines) b.lines.push_back(line.number);
  return out;
}

}  // namespace

TokenizedLines TokenizeLines(const tokenizers::Tokenizer& tokenizer, std::string_view text,
                             int64_t first_line, const std::string& source,
                             const TextOptions& options) {
  const std::vector<Line> lines = SplitLines(text, first_line);
  return TokenizeAll(tokenizer, lines, options, [&](int64_t i) {
    return source + ": line " + std::to_string(lines[static_cast<size_t>(i)].number);
  });
}

TokenizedLines TokenizeTexts(const tokenizers::Tokenizer& tokenizer,
                             const std::vector<std::string_view>& a,
                             const std::vector<std::string_view>* b, const TextOptions& options,
                             const std::function<std::string(int64_t)>& name) {
  std::vector<Line> lines(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    lines[i].text = a[i];
    lines[i].number = static_cast<int64_t>(i);
    if (b) {
      lines[i].pair = (*b)[i];
      lines[i].has_pair = true;
    }
  }
  TextOptions o = options;
  o.pairs = false;
  return TokenizeAll(tokenizer, lines, o, name);
}

void ForEachLineBlock(const std::string& path, size_t block_bytes,
                      const std::function<void(std::string_view, int64_t)>& fn) {
  // "-" is standard input; any other path is opened as it is (a pipe such as
  // /dev/stdin or <(...) too): nothing here seeks, so a stream reads as a file.
  std::ifstream file;
  if (path != "-") {
    file.open(path, std::ios::binary);
    if (!file) throw Error(path + ": cannot open for reading: " + std::strerror(errno));
  }
  std::istream& in = path == "-" ? std::cin : file;
  // The buffer grows from 64 KiB to block_bytes: a small input costs a small one.
  size_t chunk = std::min<size_t>(block_bytes, size_t{64} << 10);
  std::string block;
  int64_t first_line = 1;
  bool more = true;
  while (more) {
    const size_t have = block.size();
    block.resize(have + chunk);
    in.read(block.data() + have, static_cast<std::streamsize>(chunk));
    const auto got = static_cast<size_t>(in.gcount());
    // A short read is the end of the input or a failure, never "more".
    if (in.bad() || (got < chunk && !in.eof()))
      throw Error(path + ": cannot read: " + std::strerror(errno));
    block.resize(have + got);
    more = !in.eof();
    chunk = std::min(block_bytes, chunk * 2);
    // Whole lines only, unless the input has ended.
    size_t end = more ? block.rfind('\n') : block.size();
    if (end == std::string::npos) continue;  // one long line: read on
    if (more) ++end;
    if (end == 0) continue;
    fn(std::string_view(block.data(), end), first_line);
    for (size_t i = 0; i < end; ++i) first_line += block[i] == '\n';
    block.erase(0, end);
  }
}

void AppendTokensLine(const TokenizedLines& lines, int64_t i, std::string& out) {
  const TokenBatch& b = lines.batch;
  const int64_t pair = lines.pair_starts[i];
  // Written in a buffer on the stack, appended to out when nearly full.
  char buf[4096];
  size_t n = 0;
  for (int64_t k = b.offsets[i]; k < b.offsets[i + 1]; ++k) {
    if (n + 16 > sizeof buf) {
      out.append(buf, n);
      n = 0;
    }
    const int64_t at = k - b.offsets[i];
    if (at == pair) {
      buf[n++] = '\t';
    } else if (at > 0) {
      buf[n++] = ' ';
    }
    n = static_cast<size_t>(std::to_chars(buf + n, buf + sizeof buf, b.ids[k]).ptr - buf);
  }
  if (pair >= 0 && pair == b.lengths[i]) buf[n++] = '\t';  // an empty second text
  buf[n++] = '\n';
  out.append(buf, n);
}

void AppendOffsetsLine(const TokenizedLines& lines, int64_t i, std::string& out) {
  const TokenBatch& b = lines.batch;
  const int64_t begin = b.offsets[i], end = b.offsets[i + 1];
  out += "{\"ids\": [";
  for (int64_t k = begin; k < end; ++k) {
    if (k > begin) out += ", ";
    out += std::to_string(b.ids[k]);
  }
  out += "], \"offsets\": [";
  for (int64_t k = begin; k < end; ++k) {
    if (k > begin) out += ", ";
    const auto& [s, e] = lines.spans[static_cast<size_t>(k)];
    out += "[" + std::to_string(s) + ", " + std::to_string(e) + "]";
  }
  out += "], \"special\": [";
  for (int64_t k = begin; k < end; ++k) {
    if (k > begin) out += ", ";
    out += lines.special[static_cast<size_t>(k)] ? '1' : '0';
  }
  out += ']';
  if (lines.pair_starts[i] >= 0) out += ", \"pair_start\": " + std::to_string(lines.pair_starts[i]);
  out += "}\n";
}

}  // namespace phasor

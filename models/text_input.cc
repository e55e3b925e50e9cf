#include "models/text_input.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "engine/error.h"
#include "engine/json_text.h"
#include "engine/parallel.h"
#include "models/tokenizers/utf8.h"

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

// Tokenizes one line into enc; a message instead of a throw (tasks must not
// throw). at names the line in messages.
std::string TokenizeLine(const tokenizers::Tokenizer& tok, const Line& line, const std::string& at,
                         const TextOptions& o, tokenizers::Encoding& enc) {
  std::string_view text = line.text;
  std::string replaced;
  const size_t bad = tokenizers::FindInvalidUtf8(text);
  if (bad != std::string_view::npos) {
    if (!o.replace_invalid_utf8) {
      return at + ", byte offset " + std::to_string(bad) + ": invalid UTF-8 (byte " +
             Hex(static_cast<unsigned char>(text[bad])) +
             "); give --invalid-utf8 replace to read it as U+FFFD";
    }
    replaced = tokenizers::ReplaceInvalidUtf8(text);
    text = replaced;
  }
  tokenizers::TokenizeOptions to;
  to.add_special_tokens = o.add_special_tokens;
  to.max_length = o.max_length;
  try {
    if (line.has_pair) {
      enc = tok.EncodePair(o.prefix + std::string(text), line.pair, to);
    } else if (o.pairs) {
      const size_t tab = text.find('\t');
      if (tab == std::string_view::npos) return at + ": expected text_a<TAB>text_b, found no tab";
      if (text.find('\t', tab + 1) != std::string_view::npos)
        return at + ": expected text_a<TAB>text_b, found a second tab";
      const std::string a = o.prefix + std::string(text.substr(0, tab));
      enc = tok.EncodePair(a, text.substr(tab + 1), to);
    } else if (o.prefix.empty()) {
      enc = tok.Encode(text, to);
    } else {
      enc = tok.Encode(o.prefix + std::string(text), to);
    }
  } catch (const Error& e) {
    return at + ": " + e.what();
  }
  return "";
}

// Tokenizes lines on the worker threads; name(i) names line i in messages.
TokenizedLines TokenizeAll(const tokenizers::Tokenizer& tokenizer, const std::vector<Line>& lines,
                           const TextOptions& options,
                           const std::function<std::string(int64_t)>& name) {
  const auto n = static_cast<int64_t>(lines.size());
  std::vector<tokenizers::Encoding> encodings(lines.size());
  std::vector<std::string> errors(lines.size());
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
  ParallelTasks(tasks, 0, [&](int64_t task, int) {
    for (int64_t i = task_begin[task]; i < task_begin[task + 1]; ++i) {
      errors[i] = TokenizeLine(tokenizer, lines[i], name(i), options, encodings[i]);
      if (!errors[i].empty()) return;  // the first error of the task is enough
    }
  });
  for (const std::string& e : errors)
    if (!e.empty()) throw Error(e);

  const bool pairs = options.pairs || (!lines.empty() && lines[0].has_pair);
  TokenizedLines out;
  TokenBatch& b = out.batch;
  b.batch = n;
  b.offsets.assign(1, 0);
  size_t total = 0;
  for (const auto& e : encodings) total += e.ids.size();
  b.ids.reserve(total);
  if (pairs) b.types.reserve(total);
  for (int64_t i = 0; i < n; ++i) {
    const tokenizers::Encoding& e = encodings[i];
    b.ids.insert(b.ids.end(), e.ids.begin(), e.ids.end());
    if (pairs) b.types.insert(b.types.end(), e.types.begin(), e.types.end());
    b.offsets.push_back(static_cast<int64_t>(b.ids.size()));
    b.lengths.push_back(static_cast<int64_t>(e.ids.size()));
    b.lines.push_back(lines[i].number);
    b.seq = std::max<int64_t>(b.seq, static_cast<int64_t>(e.ids.size()));
    out.pair_starts.push_back(e.pair_start);
  }
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
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open for reading: " + std::strerror(errno));
  std::string block;
  int64_t first_line = 1;
  std::vector<char> buf(block_bytes);
  bool more = true;
  while (more) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto got = static_cast<size_t>(in.gcount());
    if (in.bad()) throw Error(path + ": cannot read: " + std::strerror(errno));
    more = got == buf.size();
    block.append(buf.data(), got);
    // Whole lines only, unless the file has ended.
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
  char buf[16];
  for (int64_t k = b.offsets[i]; k < b.offsets[i + 1]; ++k) {
    const int64_t at = k - b.offsets[i];
    if (at == pair) {
      out += '\t';
    } else if (at > 0) {
      out += ' ';
    }
    const auto res = std::to_chars(buf, buf + sizeof buf, b.ids[k]);
    out.append(buf, res.ptr);
  }
  if (pair >= 0 && pair == b.lengths[i]) out += '\t';  // an empty second text
  out += '\n';
}

std::string PromptText(const std::string& dir, const std::string& name) {
  const std::string path = dir + "/config_sentence_transformers.json";
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot open for reading (--prompt needs it): " + std::strerror(errno));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::json j;
  try {
    j = json_text::ParseStrictJson(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": not valid JSON: " + e.what());
  } catch (const json_text::StructureError& e) {
    throw Error(path + ": " + e.message);
  }
  std::string known;
  if (j.is_object() && j.contains("prompts") && j["prompts"].is_object()) {
    const auto& prompts = j["prompts"];
    if (prompts.contains(name) && prompts[name].is_string())
      return prompts[name].get<std::string>();
    for (const auto& [key, value] : prompts.items()) known += (known.empty() ? "" : ", ") + key;
  }
  throw Error(path + ": prompts: no prompt \"" + name + "\" (" +
              (known.empty() ? std::string("it has none") : "it has " + known) + ")");
}

}  // namespace phasor

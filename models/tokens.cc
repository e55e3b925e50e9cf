#include "models/tokens.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "engine/error.h"
#include "engine/id_range.h"
#include "engine/json_text.h"
#include "engine/memory_limit.h"

namespace phasor {
namespace {

bool IsSeparator(char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r'; }

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A token for a message: at most 40 bytes, control and non-ASCII bytes as \xNN.
std::string Printable(const std::string& token) { return json_text::Printable(token, 40); }

}  // namespace

TokenBatch ParseTokens(const std::string& text, const std::string& source, bool pairs) {
  TokenBatch b;
  b.offsets.push_back(0);
  bool any_pair = false;
  int64_t line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    ++line_no;
    const size_t first = b.ids.size();
    int32_t segment = 0;
    size_t k = pos;
    while (k < end) {
      for (; k < end && IsSeparator(text[k]); ++k) {
        if (text[k] != '\t' || !pairs) continue;
        if (segment == 1) {
          throw Error(source + ": line " + std::to_string(line_no) +
                      " holds a second tab: a line is one sequence, or a pair whose segment 1 "
                      "follows its one tab");
        }
        segment = 1;
        any_pair = true;
      }
      if (k >= end) break;
      size_t t = k;
      while (t < end && !IsSeparator(text[t])) ++t;
      const std::string token = text.substr(k, t - k);
      const std::string where = source + ": line " + std::to_string(line_no) + ", token " +
                                std::to_string(b.ids.size() - first + 1);
      // Digits with an optional '-': strtoll alone would also take leading
      // white space ("\v5"), a '+' and stop at a NUL byte.
      const size_t digits = token[0] == '-' ? 1 : 0;
      bool numeric = token.size() > digits;
      for (size_t i = digits; i < token.size() && numeric; ++i) numeric = IsDigit(token[i]);
      if (!numeric) throw Error(where + ": '" + Printable(token) + "' is not a token id");
      errno = 0;
      const long long v = std::strtoll(token.c_str(), nullptr, 10);
      if (errno == ERANGE || v < std::numeric_limits<int32_t>::min() ||
          v > std::numeric_limits<int32_t>::max()) {
        throw Error(where + ": token id " + Printable(token) + " is out of range, expected " +
                    "a 32-bit integer");
      }
      b.ids.push_back(static_cast<int32_t>(v));
      if (pairs) b.types.push_back(segment);
      k = t;
    }
    const auto n = static_cast<int64_t>(b.ids.size() - first);
    if (n > 0) {  // a blank line is no sequence
      ++b.batch;
      b.seq = std::max(b.seq, n);
      b.lengths.push_back(n);
      b.lines.push_back(line_no);
      b.offsets.push_back(static_cast<int64_t>(b.ids.size()));
    }
    if (end == text.size()) break;
    pos = end + 1;
  }
  if (b.batch == 0) throw Error(source + ": holds no token ids");
  if (!any_pair) std::vector<int32_t>().swap(b.types);  // one segment: every token of type 0
  return b;
}

std::vector<int32_t> TokenBatch::Padded(int32_t pad) const {
  // One long line and many short ones pad to batch x seq: checked against the
  // memory limit first.
  CheckAllocation(
      SaturatingMul(SaturatingMul(static_cast<uint64_t>(batch), static_cast<uint64_t>(seq)),
                    sizeof(int32_t)),
      "a padded batch of " + std::to_string(batch) + " x " + std::to_string(seq) + " token ids");
  std::vector<int32_t> padded(static_cast<size_t>(batch * seq), pad);
  for (int64_t i = 0; i < batch; ++i) {
    std::copy(ids.begin() + offsets[i], ids.begin() + offsets[i + 1], padded.begin() + i * seq);
  }
  return padded;
}

std::vector<int32_t> TokenBatch::PaddedTypes() const {
  if (types.empty()) return {};
  std::vector<int32_t> padded(static_cast<size_t>(batch * seq), 0);  // as Padded's, checked there
  for (int64_t i = 0; i < batch; ++i) {
    std::copy(types.begin() + offsets[i], types.begin() + offsets[i + 1], padded.begin() + i * seq);
  }
  return padded;
}

void CheckTokenIds(const TokenBatch& b, int64_t vocab, const std::string& source) {
  for (int64_t i = 0; i < b.batch; ++i) {
    const int32_t* ids = b.ids.data() + b.offsets[i];
    if (const int64_t j = FindOutside(ids, b.lengths[i], vocab); j >= 0) {
      throw Error(source + ": line " + std::to_string(b.lines[i]) + ", token " +
                  std::to_string(j + 1) + ": " + OutsideRange(ids[j], vocab));
    }
  }
}

TokenBatch LoadTokens(const std::string& path, bool pairs) {
  std::stringstream s;
  if (path == "-") {  // standard input, read as it comes
    s << std::cin.rdbuf();
    if (std::cin.bad()) throw Error("standard input: cannot read the tokens");
    return ParseTokens(s.str(), "standard input", pairs);
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(path + ": is a directory, expected a tokens file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read tokens file " + path + ": " + std::strerror(errno));
  // A regular file is checked against the memory limit before it is read
  // (parsing holds the text and up to twice its size in ids, or
  // three times with the token types of pairs). A pipe such as
  // /dev/stdin is read as it comes.
  if (std::filesystem::is_regular_file(path, ec)) {
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec) CheckAllocation(SaturatingMul(size, pairs ? 4 : 3), path + ": the tokens file");
  }
  s << in.rdbuf();
  return ParseTokens(s.str(), path, pairs);
}

}  // namespace phasor

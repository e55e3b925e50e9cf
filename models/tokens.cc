#include "models/tokens.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "engine/error.h"

namespace phasor {
namespace {

bool IsSeparator(char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r'; }

}  // namespace

TokenBatch ParseTokens(const std::string& text, const std::string& source,
                       std::optional<int32_t> pad_id) {
  std::vector<std::vector<int32_t>> lines;
  std::vector<int64_t> line_numbers;
  int64_t line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    ++line_no;
    std::vector<int32_t> ids;
    size_t k = pos;
    while (k < end) {
      while (k < end && IsSeparator(text[k])) ++k;
      if (k >= end) break;
      size_t t = k;
      while (t < end && !IsSeparator(text[t])) ++t;
      const std::string token = text.substr(k, t - k);
      const std::string where = source + ": line " + std::to_string(line_no) + ", token " +
                                std::to_string(ids.size() + 1);
      char* stop = nullptr;
      errno = 0;
      const long long v = std::strtoll(token.c_str(), &stop, 10);
      if (token.empty() || stop != token.c_str() + token.size() || token[0] == '+') {
        throw Error(where + ": '" + token.substr(0, 40) + "' is not a token id");
      }
      if (errno == ERANGE || v < std::numeric_limits<int32_t>::min() ||
          v > std::numeric_limits<int32_t>::max()) {
        throw Error(where + ": token id " + token.substr(0, 40) + " is out of range");
      }
      ids.push_back(static_cast<int32_t>(v));
      k = t;
    }
    if (!ids.empty()) {
      lines.push_back(std::move(ids));
      line_numbers.push_back(line_no);
    }
    if (end == text.size()) break;
    pos = end + 1;
  }
  if (lines.empty()) throw Error(source + ": holds no token ids");
  TokenBatch b;
  b.batch = static_cast<int64_t>(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    b.seq = std::max<int64_t>(b.seq, static_cast<int64_t>(lines[i].size()));
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    const int64_t n = static_cast<int64_t>(lines[i].size());
    if (n != b.seq && !pad_id) {
      throw Error(source + ": line " + std::to_string(line_numbers[i]) + " has " +
                  std::to_string(n) + " tokens, line " + std::to_string(line_numbers[0]) + " has " +
                  std::to_string(lines[0].size()) +
                  "; ragged sequences need pad_token_id in the model config");
    }
  }
  b.ids.assign(static_cast<size_t>(b.batch * b.seq), pad_id.value_or(0));
  for (int64_t i = 0; i < b.batch; ++i) {
    std::copy(lines[i].begin(), lines[i].end(), b.ids.begin() + i * b.seq);
    b.lengths.push_back(static_cast<int64_t>(lines[i].size()));
  }
  return b;
}

TokenBatch LoadTokens(const std::string& path, std::optional<int32_t> pad_id) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read tokens file " + path);
  std::stringstream s;
  s << in.rdbuf();
  return ParseTokens(s.str(), path, pad_id);
}

}  // namespace phasor

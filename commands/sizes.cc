#include "commands/sizes.h"

#include <cctype>
#include <limits>

#include "engine/error.h"

namespace phasor {
namespace {

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

}  // namespace

int64_t ParseSize(const std::string& option, const std::string& text) {
  const std::string s = Trim(text);
  const auto bad = [&](const std::string& why) {
    return UsageError(option + ": '" + text.substr(0, 40) + "' " + why);
  };
  size_t k = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) ++k;
  const size_t digits_from = k;
  while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
  const std::string digits = s.substr(digits_from, k - digits_from);
  int64_t mult = 1;
  if (k + 1 == s.size()) {
    switch (std::toupper(static_cast<unsigned char>(s[k]))) {
      case 'K':
        mult = int64_t{1} << 10;
        break;
      case 'M':
        mult = int64_t{1} << 20;
        break;
      case 'G':
        mult = int64_t{1} << 30;
        break;
      default:
        mult = 0;
    }
    ++k;
  }
  if (digits.empty() || mult == 0 || k != s.size()) {
    throw bad("is not a size (e.g. 4096, 16K, 1M)");
  }
  const int64_t limit = std::numeric_limits<int64_t>::max() / mult;
  int64_t v = 0;
  for (char c : digits) {
    if (v > (limit - (c - '0')) / 10) throw bad("is too large");
    v = v * 10 + (c - '0');
  }
  return (negative ? -v : v) * mult;
}

std::vector<int64_t> ParseSizeList(const std::string& option, const std::string& text) {
  std::vector<int64_t> out;
  if (Trim(text).empty()) throw UsageError(option + " is empty");
  size_t from = 0;
  for (;;) {
    const size_t comma = text.find(',', from);
    const std::string item = text.substr(from, comma == std::string::npos ? comma : comma - from);
    if (Trim(item).empty()) throw UsageError(option + ": '" + text + "' has an empty entry");
    out.push_back(ParseSize(option, item));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return out;
}

}  // namespace phasor

#include "engine/memory_limit.h"

#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "engine/error.h"

namespace phasor {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

// 0 until set: DefaultMemoryLimit() is computed on first use.
std::atomic<uint64_t> g_limit{0};
std::atomic<bool> g_limit_set{false};

}  // namespace

uint64_t DefaultMemoryLimit() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 8 * kGiB;
  const uint64_t ram =
      SaturatingMul(static_cast<uint64_t>(pages), static_cast<uint64_t>(page_size));
  return ram / 4 * 3;
}

void SetMemoryLimit(uint64_t bytes) {
  g_limit.store(bytes);
  g_limit_set.store(true);
}

uint64_t MemoryLimit() {
  if (!g_limit_set.load()) {
    static const uint64_t default_limit = DefaultMemoryLimit();
    return default_limit;
  }
  return g_limit.load();
}

void CheckAllocation(uint64_t bytes, const std::string& what) {
  const uint64_t limit = MemoryLimit();
  if (limit == 0 || bytes <= limit) return;
  throw Error(what + " needs " +
              (bytes == std::numeric_limits<uint64_t>::max() ? std::string("more than 2^64 bytes")
                                                             : FormatBytes(bytes)) +
              ", more than the memory limit of " + FormatBytes(limit) + " (set with --max-memory)");
}

uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) {
    return std::numeric_limits<uint64_t>::max();
  }
  return a * b;
}

uint64_t ParseByteSize(const std::string& text) {
  const auto bad = [&](const std::string& why) -> UsageError {
    return UsageError("memory size '" + text.substr(0, 40) + "' " + why +
                      ", expected e.g. 4G, 512M, 1.5GiB or a number of bytes");
  };
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) {
    ++i;
  }
  const std::string number = text.substr(0, i);
  if (number.empty() || number.find('.') != number.rfind('.') || number == ".") {
    throw bad("is not a size");
  }
  size_t j = i;
  while (j < text.size() && text[j] == ' ') ++j;
  std::string unit;
  for (; j < text.size(); ++j)
    unit += static_cast<char>(std::toupper(static_cast<unsigned char>(text[j])));
  int shift = 0;
  size_t k = 0;
  if (!unit.empty()) {
    switch (unit[0]) {
      case 'K':
        shift = 10;
        k = 1;
        break;
      case 'M':
        shift = 20;
        k = 1;
        break;
      case 'G':
        shift = 30;
        k = 1;
        break;
      case 'T':
        shift = 40;
        k = 1;
        break;
      default:
        break;
    }
  }
  const std::string rest = unit.substr(k);
  if (!(rest.empty() || rest == "B" || (k == 1 && rest == "IB"))) throw bad("has an unknown unit");
  const long double value = std::strtold(number.c_str(), nullptr) * std::ldexp(1.0L, shift);
  if (!(value >= 1)) throw bad("is zero");
  if (value > std::ldexp(1.0L, 62)) throw bad("is too large");
  return static_cast<uint64_t>(value);
}

std::string FormatBytes(uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  long double v = static_cast<long double>(bytes);
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  char buf[48];
  if (u == 0 || v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0Lf %s", v, kUnits[u]);
  } else {
    std::snprintf(buf, sizeof buf, "%.1Lf %s", v, kUnits[u]);
  }
  return buf;
}

}  // namespace phasor

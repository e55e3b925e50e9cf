#include "tools/sizes.h"

#include <cmath>
#include <cstdio>

namespace phasor::cli {
CLI::Option* AddSizeOption(CLI::App* cmd, const std::string& name, int64_t* target,
                           const std::string& help) {
  return cmd
      ->add_option_function<std::string>(
          name, [name, target](const std::string& text) { *target = ParseSize(name, text); }, help)
      ->type_name("SIZE")
      ->default_str(std::to_string(*target));
}

std::string FormatSi(double value) {
  if (!std::isfinite(value)) return std::to_string(value);
  static const char* kPrefixes[] = {"", "k", "M", "G", "T", "P"};  // powers of 1000
  int p = 0;
  double v = value;
  while (std::fabs(v) >= 1000 && p < 5) {
    v /= 1000;
    ++p;
  }
  char buf[32];
  const double a = std::fabs(v);
  if (p == 0 && a == std::floor(a)) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
  } else {
    // Three significant digits, and every digit before the point (1000k, never 1e+03k).
    std::snprintf(buf, sizeof buf, a >= 99.95 ? "%.0f%s" : "%.3g%s", v, kPrefixes[p]);
  }
  return buf;
}

std::string FormatDuration(double seconds) {
  char buf[32];
  if (seconds < 1) {
    std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f s", seconds);
  }
  return buf;
}

std::string Plural(int64_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace phasor::cli

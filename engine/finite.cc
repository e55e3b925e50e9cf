#include "engine/finite.h"

#include <cmath>
#include <cstring>

#include "engine/bfloat16.h"

namespace phasor {
namespace {

// Exponent all ones: Inf or NaN. Works under -ffast-math, unlike std::isfinite.
bool NonFinite(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return (bits & 0x7f800000u) == 0x7f800000u;
}

}  // namespace

std::optional<NonFiniteReport> FindNonFinite(const Weights& weights) {
  std::optional<NonFiniteReport> report;
  for (const std::string& name : weights.Names()) {
    // Float32 values, or a tensor kept in bfloat16 (its bits are a float's top
    // half: the same exponent test), or none once released.
    const Tensor& t = weights.Get(name);
    const bool bf16 = t.data.empty();
    const int64_t n = static_cast<int64_t>(bf16 ? t.bf16.size() : t.data.size());
    const auto value = [&](int64_t i) {
      return bf16 ? BFloat16ToFloat(t.bf16[static_cast<size_t>(i)])
                  : t.data[static_cast<size_t>(i)];
    };
    int64_t count = 0, first = -1;
    for (int64_t i = 0; i < n; ++i) {
      if (NonFinite(value(i))) {
        if (first < 0) first = i;
        ++count;
      }
    }
    if (count == 0) continue;
    if (!report) report = NonFiniteReport{name, first, value(first), count, 0};
    ++report->tensors;
  }
  return report;
}

std::string NonFiniteWarning(const Weights& weights) {
  const std::optional<NonFiniteReport> r = FindNonFinite(weights);
  if (!r) return "";
  const char* value = std::isnan(r->value) ? "nan" : r->value > 0 ? "inf" : "-inf";
  std::string text = weights.source() + ": tensor '" + r->tensor + "' holds " +
                     std::to_string(r->count) + " non-finite value" + (r->count == 1 ? "" : "s") +
                     " (first: " + value + " at index " + std::to_string(r->index) + " of " +
                     ShapeToString(weights.Get(r->tensor).shape) + ")";
  if (r->tensors > 1) text += ", and " + std::to_string(r->tensors - 1) + " more tensor(s) do";
  return text + "; outputs will be NaN or Inf";
}

}  // namespace phasor

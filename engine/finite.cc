#include "engine/finite.h"

#include <cmath>
#include <cstring>

#include "engine/bfloat16.h"

namespace phasor {
namespace {

// Exponent all ones: Inf or NaN, on the bits (works under -ffast-math, unlike
// std::isfinite). Float32 bits, or bfloat16 bits (a float's top half).
bool NonFinite(uint32_t bits) { return (bits & 0x7f800000u) == 0x7f800000u; }
bool NonFinite(uint16_t bits) { return (bits & 0x7f80u) == 0x7f80u; }

// How many of v[0, n) are non-finite, and the first one's index (-1 if none):
// a counting pass without a branch, which the compiler vectorises, then a
// search only where there is something to find.
template <class Bits, class Value>
int64_t CountNonFinite(const Value* v, int64_t n, int64_t* first) {
  static_assert(sizeof(Bits) == sizeof(Value), "bits of the value");
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    Bits bits;
    std::memcpy(&bits, &v[i], sizeof(bits));
    count += NonFinite(bits) ? 1 : 0;
  }
  *first = -1;
  for (int64_t i = 0; count > 0 && i < n; ++i) {
    Bits bits;
    std::memcpy(&bits, &v[i], sizeof(bits));
    if (NonFinite(bits)) {
      *first = i;
      break;
    }
  }
  return count;
}

}  // namespace

std::optional<NonFiniteReport> FindNonFinite(const Weights& weights) {
  std::optional<NonFiniteReport> report;
  for (const std::string& name : weights.Names()) {
    // Float32 values, or a tensor kept in bfloat16, or none once released.
    const Tensor& t = weights.Get(name);
    const bool bf16 = t.data.empty();
    int64_t first = -1;
    const int64_t count =
        bf16 ? CountNonFinite<uint16_t>(t.bf16.data(), static_cast<int64_t>(t.bf16.size()), &first)
             : CountNonFinite<uint32_t>(t.data.data(), static_cast<int64_t>(t.data.size()), &first);
    if (count == 0) continue;
    const float value = bf16 ? BFloat16ToFloat(t.bf16[static_cast<size_t>(first)])
                             : t.data[static_cast<size_t>(first)];
    if (!report) report = NonFiniteReport{name, first, value, count, 0};
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

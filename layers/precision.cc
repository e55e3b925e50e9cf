#include "layers/precision.h"

#include "engine/error.h"

namespace phasor {

Precision ParsePrecision(const std::string& s) {
  if (s == "fp32") return Precision::kFp32;
  if (s == "bf16") return Precision::kBf16;
  if (s == "int8") return Precision::kInt8;
  throw Error("unknown precision '" + s + "', expected 'fp32', 'bf16' or 'int8'");
}

const char* ToString(Precision v) {
  switch (v) {
    case Precision::kFp32:
      return "fp32";
    case Precision::kBf16:
      return "bf16";
    case Precision::kInt8:
      return "int8";
  }
  return "?";
}

}  // namespace phasor

#include "layers/spans.h"

#include <string>

#include "engine/error.h"

namespace phasor {

void CheckSpans(const Spans& spans, int64_t rows, const char* where) {
  if (spans.batch < 0 || (spans.batch > 0 && (spans.start == nullptr || spans.length == nullptr))) {
    throw Error(std::string(where) + ": bad sequence spans");
  }
  int64_t end = 0;  // the first row after the previous sequence
  for (int64_t b = 0; b < spans.batch; ++b) {
    const int64_t s = spans.start[b], n = spans.length[b];
    if (n < 0 || s < end || s > rows || n > rows - s) {
      throw Error(std::string(where) + ": sequence " + std::to_string(b) + " at rows " +
                  std::to_string(s) + " .. " + std::to_string(s + n) +
                  " is out of order or outside the " + std::to_string(rows) + " rows");
    }
    if (spans.Keys(b) < 0 || spans.Keys(b) > n) {
      throw Error(std::string(where) + ": " + std::to_string(spans.Keys(b)) + " keys of sequence " +
                  std::to_string(b) + " are outside [0, " + std::to_string(n) + "]");
    }
    end = s + n;
  }
}

}  // namespace phasor

#include "models/input_rules.h"

#include <algorithm>

#include "engine/error.h"
#include "engine/size_limits.h"

namespace phasor {
namespace {

std::string Count(int64_t n, const std::string& what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

}  // namespace

std::string TooLargeForOneCall(const std::string& what) {
  return what + " is too large for one call (at most 2^26 tokens and 2^31 output values)";
}

bool FitsOneCall(int64_t rows, int64_t cols, int64_t d, bool pooled) {
  if (rows <= 0 || cols <= 0) return true;
  if (cols > kMaxBatchTokens / rows) return false;
  const int64_t out_rows = pooled ? rows : rows * cols;  // at most 2^26 here
  return out_rows <= kMaxBatchValues / std::max<int64_t>(d, 1);
}

void CheckOffsets(const int64_t* offsets, int64_t batch) {
  if (offsets[0] != 0) throw Error("offsets[0] must be 0, got " + std::to_string(offsets[0]));
  for (int64_t b = 0; b < batch; ++b) {
    if (offsets[b + 1] < offsets[b]) {
      throw Error("offsets must not decrease: offsets[" + std::to_string(b + 1) +
                  "] = " + std::to_string(offsets[b + 1]) + " < offsets[" + std::to_string(b) +
                  "] = " + std::to_string(offsets[b]));
    }
  }
}

RealTokens ResolveRealTokens(const int32_t* ids, const Spans& spans, const SequenceRules& rules,
                             const std::string& input, FunctionRef<std::string(int64_t)> name) {
  const int64_t* start = spans.start;
  const int64_t* given = spans.length;
  const int64_t batch = spans.batch;
  if (batch <= 0) throw Error(input + " holds no sequence: nothing to encode");
  RealTokens r;
  r.lengths.resize(static_cast<size_t>(batch));
  int64_t warned = 0, pads = 0, first = -1, truncated = 0, first_truncated = -1;
  for (int64_t b = 0; b < batch; ++b) {
    int64_t n = given[b];
    if (n <= 0) throw Error(name(b) + " is empty: nothing to encode");
    if (rules.pad_id) {
      while (n > 0 && ids[start[b] + n - 1] == *rules.pad_id) --n;
      if (n == 0) {
        throw Error(name(b) + " holds only the pad id " + std::to_string(*rules.pad_id) +
                    " (pad_token_id): nothing to encode");
      }
    }
    if (n < given[b] && rules.warn_trailing_pads) {
      if (first < 0) first = b;
      ++warned;
      pads += given[b] - n;
    }
    if (rules.max_length > 0 && n > rules.max_length) {
      if (!rules.truncate) {
        throw Error(name(b) + " has " + std::to_string(n) + " tokens, more than the " +
                    std::to_string(rules.max_length) + " positions of " + rules.max_length_of +
                    "; --truncate (Python truncate=True) keeps the first " +
                    std::to_string(rules.max_length));
      }
      if (first_truncated < 0) first_truncated = b;
      ++truncated;
      n = rules.max_length;
    }
    r.lengths[b] = n;
    r.total += n;
  }
  if (warned > 0) {
    r.warning = name(first) + " ends in " + Count(given[first] - r.lengths[first], "pad id") +
                " (pad_token_id " + std::to_string(*rules.pad_id) + ")";
    if (warned > 1) {
      r.warning += ", and " + Count(warned - 1, "more " + rules.unit) + " (" +
                   Count(pads, "pad id") + " in all)";
    }
    r.warning += rules.padded_output ? ", taken as padding: masked, and their output rows are 0"
                                     : ", taken as padding: masked, and left out of the output";
  }
  if (truncated > 0) {
    if (!r.warning.empty()) r.warning += "\n";
    r.warning += name(first_truncated) +
                 (truncated > 1 ? " and " + Count(truncated - 1, "more " + rules.unit) : "") +
                 " cut to the " + std::to_string(rules.max_length) + " positions of " +
                 rules.max_length_of + " (--truncate)";
  }
  return r;
}

}  // namespace phasor

// The one rule for ids against a range (a token id inside the vocabulary, a
// token type inside the model's types): every front end finds the first id
// outside by FindOutside and words it by OutsideRange, naming the place its
// own way ("line 3, token 2: ", "inputs[1][4]: ", "... at sequence 0,
// position 5").
//
//   if (const int64_t j = FindOutside(ids, n, vocab); j >= 0)
//     throw Error(where + OutsideRange(ids[j], vocab));
//   // "token id 99 is outside the vocabulary [0, 60)"
#pragma once

#include <cstdint>
#include <string>

namespace phasor {

// The index of the first of ids[0 .. n) outside [0, end), or -1.
inline int64_t FindOutside(const int32_t* ids, int64_t n, int64_t end) {
  for (int64_t j = 0; j < n; ++j) {
    if (ids[j] < 0 || ids[j] >= end) return j;
  }
  return -1;
}

// "token id 99 is outside the vocabulary [0, 60)"; what and range name
// another kind ("token type", "the model's token types"). at: inserted after
// the value (" at sequence 0, position 5"), or empty.
inline std::string OutsideRange(int64_t value, int64_t end, const std::string& at = "",
                                const char* what = "token id",
                                const char* range = "the vocabulary") {
  return std::string(what) + " " + std::to_string(value) + at + " is outside " + range + " [0, " +
         std::to_string(end) + ")";
}

}  // namespace phasor

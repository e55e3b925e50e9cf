// Python values into the C++ API's types, with phasor.Error (never a crash or
// a silent wrap-around) for anything that does not convert.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

namespace phasor::python {

namespace py = pybind11;

// A Python int or NumPy integer (operator.index), not a bool, a float or a
// string; Error naming the argument otherwise.
int64_t ToInt(py::handle value, const std::string& name);
// A Python or NumPy real number (int or float), not a bool.
double ToDouble(py::handle value, const std::string& name);
// A str.
std::string ToStr(py::handle value, const std::string& name);
// Error unless lo <= value <= hi: "<name> must be in [lo, hi], got value".
void CheckRange(const std::string& name, int64_t value, int64_t lo, int64_t hi);

// Token ids [batch, seq] as int32, from a 1-D or 2-D integer array-like.
struct Ids {
  py::array array;  // int32, C order: the caller's own array (no copy) or a converted one
  int64_t batch = 0;
  int64_t seq = 0;
  bool one_sequence = false;  // the input was 1-D: [seq]
  const int32_t* data() const { return static_cast<const int32_t*>(array.data()); }
};

// Views ids without a copy when they are an aligned, C-contiguous int32 array
// in native byte order; otherwise converts them, after checking that every id
// is in [0, vocab_size) (the C++ check's message, naming sequence and
// position), so that no value wraps around on the way to int32. Error for a
// rank other than 1 or 2, a non-integer dtype (an empty array of any numeric
// dtype is accepted), or a ragged list of lists.
Ids ToIds(py::handle ids, int64_t vocab_size);

// lengths: [batch] integers in [0, seq] (for 1-D ids, a single int or [1]).
std::vector<int64_t> ToLengths(py::handle lengths, const Ids& ids);

}  // namespace phasor::python

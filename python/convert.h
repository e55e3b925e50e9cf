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

// Token ids as the module takes them, copied into memory of its own: nothing
// the caller can change while the GIL is released is read.
struct Ids {
  enum class Form {
    kOne,    // a 1-D array or list: one sequence, [seq]
    kBatch,  // a 2-D array, or a list of equal-length sequences: [batch, seq]
    kList,   // a list of 1-D sequences of different lengths
  };
  Form form = Form::kBatch;
  int64_t batch = 0;
  int64_t seq = 0;               // the longest sequence
  std::vector<int32_t> ids;      // kOne, kBatch: [batch, seq]; kList: packed
  std::vector<int64_t> offsets;  // [batch + 1]: sequence b is ids[offsets[b] .. offsets[b + 1])
};

// Reads ids: a 1-D or 2-D integer array-like, or a list (or tuple) of 1-D
// integer sequences of different lengths. Sizes are checked against
// max_tokens (and the output against max_values floats of d_model each)
// before anything the size of the input is allocated, and every id against
// [0, vocab_size) before a cast could wrap it (the C++ check's message, naming
// sequence and position). Error naming the type, shape or dtype for anything
// else.
Ids ToIds(py::handle ids, int64_t vocab_size, int64_t d_model, int64_t max_tokens,
          int64_t max_values, bool pooled);

// token_type_ids for ids: an integer array-like of ids' shape (for a list of
// sequences of different lengths, a list of as many sequences, each as long
// as its ids), every value in [0, n_types). Returned laid out as ids.ids.
// Error naming the shape, dtype, or the value and where it is.
std::vector<int32_t> ToTokenTypes(py::handle types, const Ids& ids, int64_t n_types);

// lengths: [batch] integers in [1, seq] (for 1-D ids, a single int or [1]),
// for array ids only.
std::vector<int64_t> ToLengths(py::handle lengths, const Ids& ids);

}  // namespace phasor::python

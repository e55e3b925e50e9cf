// A call's arguments by name, for the methods bound as (*args, **kwargs) so
// that a wrong call is one short line: pybind11's own TypeError repeats every
// argument it was given (the whole input: 347,093 characters for 2,000
// sentences).
//
//   const Arguments a("encode", {{"ids"}, {"batch_size", py::int_(32)}}, args, kwargs);
//   const int64_t n = IntArgument(a, "batch_size");  // "encode: batch_size must be an int, got
//   str"
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace phasor::python {

namespace py = pybind11;

struct Parameter {
  const char* name;
  py::object default_value = py::object();  // null: required
  const char* alias = nullptr;              // another keyword for it ("sentences" for "ids")
};

class Arguments {
 public:
  // Matches args (in the order of params) and kwargs to params. TypeError,
  // naming only the function and the argument, for an unknown keyword, an
  // argument given twice, a missing one or too many positional ones.
  Arguments(std::string function, const std::vector<Parameter>& params, const py::args& args,
            const py::kwargs& kwargs);

  // The value of name: the caller's or the default.
  py::handle operator[](const std::string& name) const;
  // Whether the caller gave name.
  bool given(const std::string& name) const;
  const std::string& function() const { return function_; }

 private:
  size_t IndexOf(const std::string& name) const;

  std::string function_;
  std::vector<std::string> names_;
  std::vector<py::object> values_;
  std::vector<bool> given_;
};

// The type name of value ("str", "ndarray").
std::string TypeNameOf(py::handle value);

// Arguments of a kind, else phasor.Error "FUNCTION: NAME must be KIND, got TYPE".
bool BoolArgument(const Arguments& a, const std::string& name);
std::optional<bool> OptionalBoolArgument(const Arguments& a, const std::string& name);  // None
int64_t IntArgument(const Arguments& a, const std::string& name, int64_t lo, int64_t hi);
std::optional<std::string> OptionalStrArgument(const Arguments& a, const std::string& name);

}  // namespace phasor::python

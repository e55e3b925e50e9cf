#include "python/keywords.h"

#include <utility>

#include "commands/option_checks.h"
#include "engine/error.h"
#include "python/convert.h"

namespace phasor::python {

Arguments::Arguments(std::string function, const std::vector<Parameter>& params,
                     const py::args& args, const py::kwargs& kwargs)
    : function_(std::move(function)), values_(params.size()), given_(params.size(), false) {
  for (const Parameter& p : params) names_.emplace_back(p.name);
  if (args.size() > params.size()) {
    throw py::type_error(function_ + "() takes at most " + std::to_string(params.size()) +
                         " arguments (" + std::to_string(args.size()) + " given)");
  }
  for (size_t i = 0; i < args.size(); ++i) {
    values_[i] = py::reinterpret_borrow<py::object>(args[i]);
    given_[i] = true;
  }
  for (const auto& item : kwargs) {
    const std::string key = item.first.cast<std::string>();
    size_t i = 0;
    while (i < params.size() && key != params[i].name &&
           !(params[i].alias && key == params[i].alias)) {
      ++i;
    }
    if (i == params.size()) {
      throw py::type_error(function_ + "() got an unexpected keyword argument '" + key + "'");
    }
    if (given_[i]) {
      throw py::type_error(function_ + "() got multiple values for argument '" + names_[i] + "'");
    }
    values_[i] = py::reinterpret_borrow<py::object>(item.second);
    given_[i] = true;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (given_[i]) continue;
    if (!params[i].default_value) {
      throw py::type_error(function_ + "() missing required argument '" + names_[i] + "'");
    }
    values_[i] = params[i].default_value;
  }
}

size_t Arguments::IndexOf(const std::string& name) const {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return i;
  throw std::logic_error("no parameter " + name + " of " + function_);
}

py::handle Arguments::operator[](const std::string& name) const { return values_[IndexOf(name)]; }

bool Arguments::given(const std::string& name) const { return given_[IndexOf(name)]; }

std::string TypeNameOf(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

namespace {

[[noreturn]] void Wrong(const Arguments& a, const std::string& name, const std::string& kind) {
  throw Error(a.function() + ": " + name + " must be " + kind + ", got " + TypeNameOf(a[name]));
}

}  // namespace

bool BoolArgument(const Arguments& a, const std::string& name) {
  if (!py::isinstance<py::bool_>(a[name])) Wrong(a, name, "True or False");
  return a[name].cast<bool>();
}

std::optional<bool> OptionalBoolArgument(const Arguments& a, const std::string& name) {
  if (a[name].is_none()) return std::nullopt;
  if (!py::isinstance<py::bool_>(a[name])) Wrong(a, name, "True, False or None");
  return a[name].cast<bool>();
}

int64_t IntArgument(const Arguments& a, const std::string& name, int64_t lo, int64_t hi) {
  int64_t v = 0;
  try {
    v = ToInt(a[name], name);
  } catch (const Error& e) {
    if (std::string(e.what()).find("out of range") == std::string::npos) Wrong(a, name, "an int");
    throw Error(a.function() + ": " + e.what());
  }
  CheckRange(a.function() + ": " + name, v, lo, hi);
  return v;
}

std::optional<std::string> OptionalStrArgument(const Arguments& a, const std::string& name) {
  if (a[name].is_none()) return std::nullopt;
  if (!py::isinstance<py::str>(a[name])) Wrong(a, name, "a str or None");
  return a[name].cast<std::string>();
}

}  // namespace phasor::python

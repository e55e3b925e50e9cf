#include "python/convert.h"

#include <limits>

#include "models/phasor.h"

namespace phasor::python {
namespace {

std::string TypeName(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

bool IsBool(py::handle value) {
  return py::isinstance<py::bool_>(value) ||
         py::isinstance(value, py::module_::import("numpy").attr("bool_"));
}

std::string ShapeText(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    s += std::to_string(a.shape(i)) + (a.ndim() == 1 || i + 1 < a.ndim() ? "," : "");
    if (i + 1 < a.ndim()) s += " ";
  }
  return s + ")";
}

// value as a NumPy array, or Error naming what could not be read.
py::array AsArray(py::handle value, const std::string& name) {
  if (py::isinstance<py::array>(value)) return py::reinterpret_borrow<py::array>(value);
  try {
    return py::module_::import("numpy").attr("asarray")(value);
  } catch (py::error_already_set& e) {
    throw Error(name + " cannot be read as an array: " + std::string(e.what()));
  }
}

char Kind(const py::array& a) { return a.dtype().kind(); }

// a < b for Python objects (ints of any size).
bool Less(py::handle a, py::handle b) {
  const int r = PyObject_RichCompareBool(a.ptr(), b.ptr(), Py_LT);
  if (r < 0) throw py::error_already_set();
  return r == 1;
}

}  // namespace

int64_t ToInt(py::handle value, const std::string& name) {
  if (!IsBool(value)) {
    try {
      const py::object index = py::module_::import("operator").attr("index")(value);
      const auto v = index.cast<py::int_>();
      if (!Less(v, py::int_(std::numeric_limits<int64_t>::min())) &&
          !Less(py::int_(std::numeric_limits<int64_t>::max()), v)) {
        return v.cast<int64_t>();
      }
      throw Error(name + " is out of range, got " + py::repr(v).cast<std::string>());
    } catch (py::error_already_set&) {
    }
  }
  throw Error(name + " must be an integer, got " + TypeName(value));
}

double ToDouble(py::handle value, const std::string& name) {
  if (!IsBool(value)) {
    try {
      return py::module_::import("operator").attr("index")(value).cast<double>();
    } catch (py::error_already_set&) {
    }
    if (py::isinstance<py::float_>(value) ||
        py::isinstance(value, py::module_::import("numpy").attr("floating"))) {
      return value.cast<double>();
    }
  }
  throw Error(name + " must be a number, got " + TypeName(value));
}

std::string ToStr(py::handle value, const std::string& name) {
  if (!py::isinstance<py::str>(value)) {
    throw Error(name + " must be a string, got " + TypeName(value));
  }
  return value.cast<std::string>();
}

void CheckRange(const std::string& name, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi) {
    throw Error(name + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                "], got " + std::to_string(value));
  }
}

Ids ToIds(py::handle ids, int64_t vocab_size) {
  const py::array a = AsArray(ids, "ids");
  if (a.ndim() != 1 && a.ndim() != 2) {
    throw Error("ids must be 1-D [seq] or 2-D [batch, seq], got shape " + ShapeText(a));
  }
  Ids out;
  out.one_sequence = a.ndim() == 1;
  out.batch = out.one_sequence ? 1 : a.shape(0);
  out.seq = out.one_sequence ? a.shape(0) : a.shape(1);
  const char kind = Kind(a);
  const bool integer = kind == 'i' || kind == 'u';
  const bool empty = a.size() == 0;
  if (!integer && !(empty && (kind == 'f' || kind == 'b'))) {
    throw Error("ids must be integers, got dtype " + py::str(a.dtype()).cast<std::string>());
  }
  using Int32C = py::array_t<int32_t, py::array::c_style>;
  const bool aligned = a.attr("flags").attr("aligned").cast<bool>();
  if (integer && aligned && py::isinstance<Int32C>(a)) {
    out.array = a;  // the caller's buffer; Model::Encode checks the ids
    return out;
  }
  py::module_ np = py::module_::import("numpy");
  if (!empty) {
    // Any id outside [0, vocab_size), found before a cast could wrap it.
    const py::array bad =
        np.attr("logical_or")(np.attr("less")(a, 0), np.attr("greater_equal")(a, vocab_size));
    if (bad.attr("any")().cast<bool>()) {
      const int64_t flat = np.attr("argmax")(bad).cast<int64_t>();
      const py::object value = a.attr("reshape")(-1)[py::int_(flat)];
      throw Error("token id " + py::str(py::int_(value)).cast<std::string>() + " at sequence " +
                  std::to_string(flat / out.seq) + ", position " + std::to_string(flat % out.seq) +
                  " is outside the vocabulary [0, " + std::to_string(vocab_size) + ")");
    }
  }
  out.array = np.attr("ascontiguousarray")(a, np.attr("int32"));
  return out;
}

std::vector<int64_t> ToLengths(py::handle lengths, const Ids& ids) {
  const py::array a = AsArray(lengths, "lengths");
  const bool shape_ok =
      (a.ndim() == 1 && a.shape(0) == ids.batch) || (a.ndim() == 0 && ids.one_sequence);
  if (!shape_ok) {
    throw Error("lengths must have shape (" + std::to_string(ids.batch) + ",), one per sequence, " +
                "got shape " + ShapeText(a));
  }
  const char kind = Kind(a);
  if (kind != 'i' && kind != 'u' && a.size() > 0) {
    throw Error("lengths must be integers, got dtype " + py::str(a.dtype()).cast<std::string>());
  }
  std::vector<int64_t> out;
  const py::list values = a.attr("reshape")(-1).attr("tolist")();
  for (size_t b = 0; b < values.size(); ++b) {
    const py::int_ v = values[b].cast<py::int_>();
    if (Less(v, py::int_(0)) || Less(py::int_(ids.seq), v)) {
      throw Error("lengths[" + std::to_string(b) + "] must be in [0, " + std::to_string(ids.seq) +
                  "], got " + py::repr(v).cast<std::string>());
    }
    out.push_back(v.cast<int64_t>());
  }
  return out;
}

}  // namespace phasor::python

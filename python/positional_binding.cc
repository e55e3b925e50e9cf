// phasor.positional_encoding and phasor.rope_rows: the rows of `phasor pe` and
// `phasor pe --kind rope` for a range of positions.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <string>

#include "commands/option_checks.h"
#include "commands/pe_job.h"
#include "models/phasor.h"
#include "python/bindings.h"
#include "python/convert.h"

namespace phasor::python {
namespace {

// ParseOption of the string value, naming the argument in its Error.
template <typename Parse>
auto Parsed(py::handle value, const std::string& name, Parse parse) {
  return ParseOption(name, ToStr(value, name), parse);
}

// start and length of a table of width columns (named width_name, the
// argument it comes from): Error unless both >= 0, the positions end by 2^40
// (as `phasor pe --start`) and the table holds at most 2^30 values.
void CheckTable(int64_t start, int64_t length, int64_t width, const std::string& width_name) {
  const TableArgNames names{"start", "length", width_name};
  CheckTableStart(start, names);
  if (length < 0) throw Error("length must be >= 0, got " + std::to_string(length));
  CheckTablePositions(start, length, names);
  if (width > 0) CheckTableValues(length, width, names);
}

// NOLINTNEXTLINE(readability-function-size): one parameter per Python keyword argument.
py::array_t<float> PositionalRows(py::handle d_model, py::handle length, py::handle start,
                                  py::handle base, py::handle layout, py::handle denominator,
                                  py::handle mode, py::handle max_len) {
  PeOptions o;
  o.d_model = ToInt(d_model, "d_model");
  o.base = ToDouble(base, "base");
  o.layout = Parsed(layout, "layout", ParsePeLayout);
  o.denominator = Parsed(denominator, "denominator", ParsePeDenominator);
  o.mode = Parsed(mode, "mode", ParsePeMode);
  o.max_len = ToInt(max_len, "max_len");
  const int64_t n = ToInt(length, "length");
  const int64_t first = ToInt(start, "start");
  if (o.d_model < 2 || o.d_model % 2 != 0) {
    throw Error("d_model must be even and >= 2, got " + std::to_string(o.d_model));
  }
  if (o.d_model > kMaxPeTableValues) {
    throw Error("d_model " + std::to_string(o.d_model) +
                " is too large for one table (limit 2^30 values)");
  }
  CheckTable(first, n, o.d_model, "d_model");
  if (o.mode != PeMode::kOnTheFly && o.max_len > kMaxPeTableValues / o.d_model) {
    throw Error("max_len " + std::to_string(o.max_len) +
                " is too large for a cached table; use mode 'on_the_fly'");
  }
  py::array_t<float> out({n, o.d_model});
  float* data = out.mutable_data();
  {
    py::gil_scoped_release release;
    ApplyNumThreads();
    const PositionalEncoding pe(o);
    pe.Fill(first, n, data);
  }
  return out;
}

RopeScaling Scaling(py::handle scaling) {
  if (scaling.is_none()) return RopeScaling();
  if (!py::isinstance<py::dict>(scaling)) {
    throw Error(
        "scaling must be a dict with the keys of config.json's positional.scaling, or "
        "None, got " +
        py::str(py::type::handle_of(scaling).attr("__name__")).cast<std::string>());
  }
  // Each value as the JSON of config.json holds it: a number that is not
  // finite has no JSON form, so it is named here rather than in a parse error.
  for (const auto& [key, value] : scaling.cast<py::dict>()) {
    if (py::isinstance<py::float_>(value) && !std::isfinite(value.cast<double>())) {
      throw Error("scaling: '" + py::str(key).cast<std::string>() +
                  "' must be a finite number, got " + py::repr(value).cast<std::string>());
    }
  }
  std::string text;
  try {
    text = py::module_::import("json").attr("dumps")(scaling).cast<std::string>();
  } catch (py::error_already_set& e) {
    throw Error("scaling: " + std::string(e.what()));
  }
  return ParseRopeScaling(text);
}

// NOLINTNEXTLINE(readability-function-size): one parameter per Python keyword argument.
py::array_t<float> RopeRows(py::handle head_dim, py::handle length, py::handle start,
                            py::handle base, py::handle layout, py::handle rotary_dim,
                            py::handle scaling) {
  RopeOptions o;
  o.d_head = ToInt(head_dim, "head_dim");
  o.rotary_dim = rotary_dim.is_none() ? 0 : ToInt(rotary_dim, "rotary_dim");
  o.base = ToDouble(base, "base");
  o.layout = Parsed(layout, "layout", ParseRopeLayout);
  o.mode = PeMode::kOnTheFly;  // as `phasor pe`: no table
  o.scaling = Scaling(scaling);
  const int64_t n = ToInt(length, "length");
  const int64_t first = ToInt(start, "start");
  if (o.d_head < 2) throw Error("head_dim must be >= 2, got " + std::to_string(o.d_head));
  if (!rotary_dim.is_none() && o.rotary_dim < 1) {
    throw Error("rotary_dim must be >= 2 (or None: head_dim), got " + std::to_string(o.rotary_dim));
  }
  // rotary_dim None rotates the whole head: an odd head_dim is the caller's.
  if (rotary_dim.is_none() && o.d_head % 2 != 0) {
    throw Error("head_dim must be even (rotary_dim None rotates all of it), got " +
                std::to_string(o.d_head));
  }
  CheckTable(first, n, o.r(), rotary_dim.is_none() ? "head_dim" : "rotary_dim");
  const RotaryEncoding rope(o);  // Error "<key>: <what>" for bad options
  py::array_t<float> out({n, rope.rotary_dim()});
  float* data = out.mutable_data();
  {
    py::gil_scoped_release release;
    ApplyNumThreads();
    rope.FillTable(first, n, data);
  }
  return out;
}

}  // namespace

void BindPositional(py::module_& m) {
  m.def("positional_encoding", &PositionalRows, py::arg("d_model"), py::arg("length"),
        py::arg("start") = 0, py::arg("base") = 10000.0, py::arg("layout") = "interleaved",
        py::arg("denominator") = "d_model", py::arg("mode") = "on_the_fly",
        py::arg("max_len") = 4096,
        "Sinusoidal PE rows of positions start .. start+length-1: float32 [length, d_model], "
        "the rows of `phasor pe`. layout 'interleaved' or 'split'; denominator 'd_model' or "
        "'half_minus_one'; mode 'on_the_fly', 'cached' (a table of max_len rows) or 'auto'.");
  m.def("rope_rows", &RopeRows, py::arg("head_dim"), py::arg("length"), py::arg("start") = 0,
        py::arg("base") = 10000.0, py::arg("layout") = "half", py::arg("rotary_dim") = py::none(),
        py::arg("scaling") = py::none(),
        "RoPE rows of positions start .. start+length-1: float32 [length, rotary_dim], the rows "
        "of `phasor pe --kind rope` (the rotation of (1, 0) in every pair: cos at the pair's "
        "first dim, sin at its second, x the attention factor). layout 'half' or "
        "'interleaved'; scaling a dict with config.json's keys, e.g. {'type': 'linear', "
        "'factor': 2.0}.");
}

}  // namespace phasor::python

// phasor.RandomSequence: the sequence `phasor embed` embeds, any piece of it.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "engine/size_limits.h"
#include "models/phasor.h"
#include "python/bindings.h"
#include "python/convert.h"

namespace phasor::python {
namespace {

RandomSequence MakeSequence(py::handle d_model, py::handle vocab, py::handle pe_mode,
                            py::handle max_len) {
  RandomSequenceOptions o;
  o.d_model = ToInt(d_model, "d_model");
  o.vocab = ToInt(vocab, "vocab");
  const std::string mode = ToStr(pe_mode, "pe_mode");
  try {
    o.pe_mode = ParsePeMode(mode);
  } catch (const Error& e) {
    throw Error(std::string("pe_mode: ") + e.what());
  }
  o.max_len = ToInt(max_len, "max_len");
  py::gil_scoped_release release;
  return RandomSequence(o);
}

// start, length as int64, Error unless both >= 0 and length rows of width fit.
std::pair<int64_t, int64_t> Range(py::handle start, py::handle length, int64_t width) {
  const int64_t first = ToInt(start, "start");
  const int64_t n = ToInt(length, "length");
  if (first < 0) throw Error("start must be >= 0, got " + std::to_string(first));
  if (n < 0) throw Error("length must be >= 0, got " + std::to_string(n));
  // Token j of the sequence is at position j: the last one asked for is a
  // position too (and first + n must not wrap).
  if (first > kMaxPosition - n) {
    throw Error("start " + std::to_string(first) + " + length " + std::to_string(n) +
                " is past the largest position (2^40)");
  }
  if (n > kMaxOutputValues / width) {
    throw Error("length " + std::to_string(n) + " x " + std::to_string(width) +
                " is too large for one call");
  }
  return {first, n};
}

py::array_t<float> Embed(const RandomSequence& s, py::handle start, py::handle length) {
  const int64_t d = s.options().d_model;
  const auto [first, n] = Range(start, length, d);
  py::array_t<float> out({n, d});
  float* data = out.mutable_data();
  {
    py::gil_scoped_release release;
    ApplyNumThreads();
    s.Embed(first, n, data);
  }
  return out;
}

py::array_t<int32_t> TokenIds(const RandomSequence& s, py::handle start, py::handle length) {
  const auto [first, n] = Range(start, length, 1);
  py::array_t<int32_t> out(n);
  s.TokenIds(first, n, out.mutable_data());
  return out;
}

}  // namespace

void BindRandomSequence(py::module_& m) {
  py::class_<RandomSequence>(
      m, "RandomSequence",
      "The sequence `phasor embed` embeds: token j is a fixed pseudo-random id, the token table "
      "has fixed pseudo-random rows, and every row gets the default sinusoidal PE of its "
      "position in pe_mode ('cached': a table of max_len rows, as `phasor embed --pe-mode "
      "cached` with max_len = --seq-len; 'auto': a table of max_len rows, computed beyond). "
      "Pieces made apart, anywhere, have the same bits as one pass.")
      .def(py::init(&MakeSequence), py::arg("d_model") = 512, py::arg("vocab") = 32000,
           py::arg("pe_mode") = "on_the_fly", py::arg("max_len") = 4096)
      .def_property_readonly("d_model", [](const RandomSequence& s) { return s.options().d_model; })
      .def_property_readonly("vocab", [](const RandomSequence& s) { return s.options().vocab; })
      .def_property_readonly(
          "pe_mode", [](const RandomSequence& s) { return phasor::ToString(s.options().pe_mode); })
      .def_property_readonly("max_len", [](const RandomSequence& s) { return s.options().max_len; })
      .def("embed", &Embed, py::arg("start"), py::arg("length"),
           "float32 [length, d_model]: rows start .. start+length-1 (token row + PE at its "
           "position).")
      .def("token_ids", &TokenIds, py::arg("start"), py::arg("length"),
           "int32 [length]: the ids of tokens start .. start+length-1.");
}

}  // namespace phasor::python

// phasor.Model: a model directory, encoded from NumPy token ids.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <vector>

#include "models/phasor.h"
#include "python/bindings.h"
#include "python/convert.h"

namespace phasor::python {
namespace {

// Largest batch of one call, as Model::Encode's (checked here before the
// output is allocated).
constexpr int64_t kMaxTokens = int64_t{1} << 26;

Model LoadModel(py::handle path, py::handle pe_mode, py::handle precision) {
  std::string dir;
  try {
    dir = py::str(py::module_::import("os").attr("fspath")(path)).cast<std::string>();
  } catch (py::error_already_set&) {
    throw Error("path must be a str or os.PathLike, got " +
                py::str(py::type::handle_of(path).attr("__name__")).cast<std::string>());
  }
  LoadOptions options;
  if (!pe_mode.is_none()) {
    const std::string s = ToStr(pe_mode, "pe_mode");
    try {
      options.pe_mode = ParsePeMode(s);
    } catch (const Error& e) {
      throw Error(std::string("pe_mode: ") + e.what());
    }
  }
  const std::string p = ToStr(precision, "precision");
  try {
    options.precision = ParsePrecision(p);
  } catch (const Error& e) {
    throw Error(std::string("precision: ") + e.what());
  }
  py::gil_scoped_release release;
  return Model::Load(dir, options);
}

py::array_t<float> Encode(const Model& model, py::handle ids_in, py::handle lengths_in,
                          py::handle stage_in) {
  const std::string stage = ToStr(stage_in, "stage");
  if (stage != "final" && stage != "embeddings") {
    throw Error("stage must be 'embeddings' or 'final', got '" + stage + "'");
  }
  const Ids ids = ToIds(ids_in, model.vocab_size());
  std::vector<int64_t> lengths;
  if (!lengths_in.is_none()) lengths = ToLengths(lengths_in, ids);
  const int64_t d = model.d_model();
  if (ids.batch > 0 &&
      (ids.seq > kMaxTokens / ids.batch || ids.batch * ids.seq > kMaxOutputValues / d)) {
    throw Error("a batch of " + std::to_string(ids.batch) + " x " + std::to_string(ids.seq) +
                " tokens is too large for one call");
  }
  std::vector<py::ssize_t> shape = {ids.batch, ids.seq, d};
  if (ids.one_sequence) shape.erase(shape.begin());
  py::array_t<float> out(shape);
  EncodeOptions options;
  options.lengths = lengths.empty() ? nullptr : lengths.data();
  options.embeddings_only = stage == "embeddings";
  const int32_t* id_data = ids.data();
  float* out_data = out.mutable_data();
  {
    // Every Python object was read above; ids.array and out stay referenced.
    py::gil_scoped_release release;
    ApplyNumThreads();
    model.Encode(id_data, ids.batch, ids.seq, out_data, options);
  }
  return out;
}

}  // namespace

void BindModel(py::module_& m) {
  py::class_<Model>(m, "Model",
                    "An encoder model directory (config.json, model.safetensors). Its methods "
                    "may be called from several Python threads at once.")
      .def(py::init(&LoadModel), py::arg("path"), py::arg("pe_mode") = py::none(),
           py::arg("precision") = "fp32",
           "Loads the model directory path; pe_mode ('cached', 'on_the_fly' or 'auto') "
           "replaces the config's positional mode; precision ('fp32', 'bf16' or 'int8') is "
           "the number format of the weight products.")
      .def_property_readonly("vocab_size", &Model::vocab_size)
      .def_property_readonly("d_model", &Model::d_model)
      .def_property_readonly("n_layers", &Model::n_layers)
      .def_property_readonly("pad_token_id",
                             [](const Model& model) -> py::object {
                               const auto pad = model.pad_token_id();
                               return pad ? py::object(py::int_(*pad)) : py::object(py::none());
                             })
      .def_property_readonly("position_offset", &Model::position_offset)
      .def_property_readonly("precision",
                             [](const Model& model) { return ToString(model.precision()); })
      .def_property_readonly("weight_bytes", &Model::weight_bytes,
                             "Bytes the weights take in memory at the model's precision.")
      .def_property_readonly(
          "config",
          [](const Model& model) {
            return py::module_::import("json").attr("loads")(model.config_json());
          },
          "The configuration as a dict: every key of config.json, defaults filled in.")
      .def("encode", &Encode, py::arg("ids"), py::arg("lengths") = py::none(),
           py::arg("stage") = "final",
           "ids: [batch, seq] integers (any integer dtype, or a list of equal-length lists), or "
           "[seq] for one sequence; int32 C-contiguous arrays are read without a copy. lengths: "
           "[batch] real tokens per sequence, the rest masked as padding. Returns float32 "
           "[batch, seq, d_model] ([seq, d_model] for 1-D ids): the final hidden states, or "
           "with stage='embeddings' the encoder's input.")
      .def("__repr__", [](const Model& model) {
        return "phasor.Model(vocab_size=" + std::to_string(model.vocab_size()) +
               ", d_model=" + std::to_string(model.d_model()) +
               ", n_layers=" + std::to_string(model.n_layers()) + ", precision='" +
               ToString(model.precision()) + "')";
      });
}

}  // namespace phasor::python

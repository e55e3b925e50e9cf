// The parts of the Python module phasor, one function per concept; module.cc
// calls them from PYBIND11_MODULE.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "engine/size_limits.h"

namespace phasor {
class Model;
}

namespace phasor::python {

namespace py = pybind11;

void BindModel(py::module_& m);           // phasor.Model (model_binding.cc)
void BindPositional(py::module_& m);      // positional_encoding, rope_rows (positional_binding.cc)
void BindRandomSequence(py::module_& m);  // phasor.RandomSequence (random_sequence_binding.cc)
void BindTokenizer(py::module_& m);       // phasor.Tokenizer (tokenizer_binding.cc)
// Model.encode, similarity, max_seq_length, ... (sentence_binding.cc) and a
// cross-encoder's predict and rank (cross_encoder_binding.cc).
void BindSentenceTransformers(py::class_<Model>& model);
void BindCrossEncoder(py::class_<Model>& model);

// The thread count set by phasor.set_num_threads, applied to the calling
// thread before each computation: OpenMP keeps it per thread, and Python
// threads (a Dask worker's, a ThreadPoolExecutor's) are not OpenMP's.
// Call without the GIL held, right before the C++ call.
void ApplyNumThreads();

// warnings.warn(message, phasor.Warning): the CLI's "phasor: warning:" lines.
// Call with the GIL held.
void Warn(const std::string& message);

// Values in one returned array at most: 2^31 float32 (8 GiB), as Model::Encode.
constexpr int64_t kMaxOutputValues = kMaxBatchValues;

}  // namespace phasor::python

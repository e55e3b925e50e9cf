// The Python module phasor: NumPy arrays in and out of the C++ API
// (models/phasor.h). Arrays are float32, C order, new on every call.
#include <pybind11/pybind11.h>

#include <atomic>

#include "commands/option_checks.h"
#include "models/phasor.h"
#include "python/bindings.h"
#include "python/convert.h"

namespace phasor::python {
namespace {

// -1: never set (each thread keeps OpenMP's default, OMP_NUM_THREADS or all cores).
std::atomic<int> g_num_threads{-1};

}  // namespace

void Warn(const std::string& message) {
  const py::object category = py::module_::import("phasor").attr("Warning");
  if (PyErr_WarnEx(category.ptr(), message.c_str(), 1) != 0) throw py::error_already_set();
}

void ApplyNumThreads() {
  const int n = g_num_threads.load(std::memory_order_relaxed);
  if (n >= 0) SetNumThreads(n);
}

}  // namespace phasor::python

PYBIND11_MODULE(phasor, m) {
  namespace py = pybind11;
  using namespace phasor::python;
  m.doc() =
      "phasor: exact positional encodings and a Transformer encoder (C++), with NumPy arrays "
      "in and out. Every error raises phasor.Error, a ValueError carrying the CLI's message.";
  m.attr("__version__") = phasor::Version();
  // Error, a ValueError; UsageError (a bad argument) is one too.
  py::register_exception<phasor::Error>(m, "Error", PyExc_ValueError);
  // Warning, a UserWarning: what the CLI prints as "phasor: warning: ...".
  m.attr("Warning") = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
      "phasor.Warning", "What the CLI prints as 'phasor: warning: ...' (a UserWarning).",
      PyExc_UserWarning, nullptr));

  m.def(
      "set_num_threads",
      [](py::handle n) {
        const int64_t v = ToInt(n, "set_num_threads: n");
        phasor::CheckRange("set_num_threads: n", v, 0, 1024);
        g_num_threads.store(static_cast<int>(v));
        phasor::SetNumThreads(static_cast<int>(v));
      },
      py::arg("n"),
      "Threads of every later call, from any Python thread (0: OMP_NUM_THREADS if set, else all "
      "cores). With 1, Python "
      "threads sharing a model run in parallel, one core each.");
  m.def(
      "get_num_threads",
      [] {
        ApplyNumThreads();
        return phasor::NumThreads();
      },
      "Threads a call from this thread uses.");

  BindModel(m);
  BindPositional(m);
  BindRandomSequence(m);
  BindTokenizer(m);
}

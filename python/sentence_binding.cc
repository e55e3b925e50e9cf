// Model.encode with phasor's keywords and sentence-transformers' (batch_size,
// normalize_embeddings, convert_to_numpy, show_progress_bar, ...), and the
// rest of SentenceTransformer's surface: similarity, max_seq_length,
// get_sentence_embedding_dimension.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/model_folder.h"
#include "models/length_rule.h"
#include "models/phasor.h"
#include "models/sentence_transformers.h"
#include "python/bindings.h"
#include "python/convert.h"
#include "python/encode.h"
#include "python/keywords.h"
#include "python/texts.h"
#include "tokenizers/tokenizer.h"

namespace phasor::python {
namespace {

using namespace pybind11::literals;

// Model.encode's parameters: phasor's first (in their positional order of
// old), then sentence-transformers' (given by keyword there too).
std::vector<Parameter> EncodeParameters() {
  const py::object none = py::none();
  return {
      {"ids", py::object(), "sentences"},
      {"lengths", none},
      {"stage", py::str("final")},
      {"pool", none},
      {"normalize", py::bool_(false)},
      {"packed", py::bool_(false)},
      {"batch_tokens", py::int_(0)},
      {"truncate", none},
      {"token_type_ids", none},
      {"prompt", none},
      {"prefix", none},
      {"batch_size", py::int_(32)},
      {"normalize_embeddings", py::bool_(false)},
      {"convert_to_numpy", py::bool_(true)},
      {"convert_to_tensor", py::bool_(false)},
      {"show_progress_bar", none},
      {"output_value", py::str("sentence_embedding")},
      {"prompt_name", none},
      {"device", none},
      {"precision", py::str("float32")},
  };
}

// pool as the call gives it, or its default: for text into a
// sentence-transformers folder, the folder's own ("model"), as
// SentenceTransformer.encode pools; else every row.
py::object PoolOf(const Model& model, const Arguments& a, const EncodeRequest& r) {
  const std::optional<std::string> output = OptionalStrArgument(a, "output_value");
  if (output != "sentence_embedding" && output != "token_embeddings") {
    throw Error("encode: output_value must be 'sentence_embedding' or 'token_embeddings', got " +
                (output ? "'" + *output + "'" : std::string("None")));
  }
  if (output == "token_embeddings") {
    if (a.given("pool") && !a["pool"].is_none())
      throw Error("encode: output_value='token_embeddings' and pool do not go together");
    return py::none();
  }
  if (a.given("pool")) return py::reinterpret_borrow<py::object>(a["pool"]);
  if (IsTexts(r.input) && r.stage == "final" && !r.packed &&
      IsSentenceTransformersFolder(model.folder())) {
    return py::str("model");
  }
  return py::none();
}

// The keywords phasor takes only as sentence-transformers' callers give them.
void CheckHints(const Arguments& a) {
  if (BoolArgument(a, "convert_to_tensor")) {
    throw Error(
        "encode: convert_to_tensor=True is not supported: phasor returns NumPy arrays and does "
        "not use torch; torch.from_numpy(model.encode(...)) makes a tensor of one");
  }
  if (OptionalStrArgument(a, "precision") != "float32") {
    throw Error(
        "encode: precision must be 'float32' (phasor does not quantize embeddings; "
        "phasor.Model(path, precision=...) sets the number format of the weight products)");
  }
  const std::optional<std::string> device = OptionalStrArgument(a, "device");
  if (device && *device != "cpu")
    throw Error("encode: device must be 'cpu' or None (phasor runs on the CPU), got '" + *device +
                "'");
}

// show_progress_bar=True: a list of texts batch_size at a time, "Batches:
// k/N" on stderr after each (as sentence-transformers' bar); the rows are the
// same bits as those of one call.
py::object EncodeInBatches(const Model& model, EncodeRequest r, int64_t batch_size) {
  const auto items = py::reinterpret_borrow<py::sequence>(r.input);
  ToTexts(items);  // every item checked and named at once
  const auto n = static_cast<int64_t>(py::len(items));
  const int64_t batches = (n + batch_size - 1) / batch_size;
  const py::object err = py::module_::import("sys").attr("stderr");
  py::list parts;
  try {
    for (int64_t k = 0; k < batches; ++k) {
      const int64_t from = k * batch_size;
      const py::object part = items[py::slice(from, std::min(n, from + batch_size), 1)];
      r.input = part;
      r.first_index = from;
      parts.append(EncodeModel(model, r));
      err.attr("write")("\rBatches: " + std::to_string(k + 1) + "/" + std::to_string(batches));
      err.attr("flush")();
    }
  } catch (...) {
    err.attr("write")("\n");
    throw;
  }
  err.attr("write")("\n");
  if (py::isinstance<py::array>(parts[0]))
    return py::module_::import("numpy").attr("concatenate")(parts);
  py::list rows;  // per-token rows: a list an item
  for (const py::handle part : parts) rows.attr("extend")(part);
  return rows;
}

py::object Encode(py::handle self, const py::args& args, const py::kwargs& kwargs) {
  const Model& model = self.cast<const Model&>();
  const Arguments a("encode", EncodeParameters(), args, kwargs);
  CheckHints(a);
  EncodeRequest r;
  r.max_seq_length = MaxSeqLengthSet(self);
  r.input = a["ids"];
  r.lengths = a["lengths"];
  r.token_type_ids = a["token_type_ids"];
  r.prefix = a["prefix"];
  r.prompt = a["prompt"];
  if (!a["prompt_name"].is_none()) {
    if (!a["prompt"].is_none())
      throw Error("encode: prompt and prompt_name name the same: give one");
    r.prompt = a["prompt_name"];
  }
  r.stage = ToStr(a["stage"], "stage");
  r.normalize = BoolArgument(a, "normalize") || BoolArgument(a, "normalize_embeddings");
  r.packed = BoolArgument(a, "packed");
  r.batch_tokens = IntArgument(a, "batch_tokens", 0, int64_t{1} << 40);
  r.truncate = OptionalBoolArgument(a, "truncate");
  const py::object pool = PoolOf(model, a, r);
  r.pool = pool;
  const int64_t batch_size = IntArgument(a, "batch_size", 1, int64_t{1} << 31);
  const bool progress = OptionalBoolArgument(a, "show_progress_bar").value_or(false);
  const bool to_numpy = BoolArgument(a, "convert_to_numpy");
  py::object out = progress && !r.packed && IsTexts(r.input) && !py::isinstance<py::str>(r.input)
                       ? EncodeInBatches(model, r, batch_size)
                       : EncodeModel(model, r);
  // A list of 1-D arrays, as sentence-transformers' list of tensors.
  if (!to_numpy && py::isinstance<py::array>(out) &&
      py::reinterpret_borrow<py::array>(out).ndim() == 2) {
    return py::list(out);
  }
  return out;
}

// Embeddings as float32 rows [n, d] (one row for 1-D), the module's own copy.
struct Rows {
  py::array_t<float, py::array::c_style> array;
  py::ssize_t n = 0, d = 0;
};

Rows RowsOf(py::handle value, const char* name) {
  Rows rows;
  try {
    rows.array = py::module_::import("numpy").attr("array")(value, "float32", "copy"_a = true,
                                                            "order"_a = "C");
  } catch (py::error_already_set&) {
    throw Error(std::string("similarity: ") + name + " must be embeddings (numbers), got " +
                TypeNameOf(value));
  }
  if (rows.array.ndim() != 1 && rows.array.ndim() != 2) {
    throw Error(std::string("similarity: ") + name + " must be 1-D [d] or 2-D [n, d], got " +
                std::to_string(rows.array.ndim()) + " dimensions");
  }
  rows.n = rows.array.ndim() == 1 ? 1 : rows.array.shape(0);
  rows.d = rows.array.shape(rows.array.ndim() - 1);
  return rows;
}

// The L2 norm of each row of rows [count, d], at least 1e-12.
std::vector<double> Norms(const float* rows, py::ssize_t count, py::ssize_t d) {
  std::vector<double> v(static_cast<size_t>(count));
  for (py::ssize_t i = 0; i < count; ++i) {
    double s = 0;
    for (py::ssize_t k = 0; k < d; ++k) s += double{rows[i * d + k]} * rows[i * d + k];
    v[static_cast<size_t>(i)] = std::max(std::sqrt(s), 1e-12);
  }
  return v;
}

// config_sentence_transformers.json's similarity_fn_name (read with the
// folder at load): "cosine" (also without the file or the key), "dot",
// "euclidean" or "manhattan"; Error naming the file and key otherwise.
std::string SimilarityFnName(const Model& model) {
  const std::string& name = model.folder()->similarity_fn_name();
  if (name.empty()) return "cosine";
  if (name != "cosine" && name != "dot" && name != "euclidean" && name != "manhattan") {
    throw Error(model.folder()->Path("config_sentence_transformers.json") +
                ": key 'similarity_fn_name': expected 'cosine', 'dot', 'euclidean' or " +
                "'manhattan', found '" + name + "'");
  }
  return name;
}

// Row i of a against row j of b [d] by fn, as sentence-transformers'
// cos_sim (each row over max(its norm, 1e-12)), dot_score, and the negated
// L2 and L1 distances.
double Score(const std::string& fn, const float* x, const float* y, py::ssize_t d, double nx,
             double ny) {
  double s = 0;
  if (fn == "euclidean") {
    for (py::ssize_t k = 0; k < d; ++k) s += (double{x[k]} - y[k]) * (double{x[k]} - y[k]);
    return -std::sqrt(s);
  }
  if (fn == "manhattan") {
    for (py::ssize_t k = 0; k < d; ++k) s += std::abs(double{x[k]} - y[k]);
    return -s;
  }
  for (py::ssize_t k = 0; k < d; ++k) s += double{x[k]} * y[k];
  return fn == "dot" ? s : s / (nx * ny);
}

py::array_t<float> Similarity(const Model& model, py::handle a_in, py::handle b_in) {
  const Rows a = RowsOf(a_in, "a"), b = RowsOf(b_in, "b");
  const py::ssize_t n = a.n, m = b.n, d = a.d;
  if (b.d != d) {
    throw Error("similarity: a has rows of " + std::to_string(d) + " values and b of " +
                std::to_string(b.d));
  }
  const std::string fn = SimilarityFnName(model);
  py::array_t<float> out({n, m});
  const float *pa = a.array.data(), *pb = b.array.data();
  float* po = out.mutable_data();
  py::gil_scoped_release release;
  const std::vector<double> na = Norms(pa, n, d), nb = Norms(pb, m, d);
  for (py::ssize_t i = 0; i < n; ++i) {
    for (py::ssize_t j = 0; j < m; ++j) {
      po[i * m + j] = static_cast<float>(Score(fn, pa + i * d, pb + j * d, d, na[i], nb[j]));
    }
  }
  return out;
}

// Where Model.max_seq_length keeps a value set on it: the instance's dict.
constexpr const char* kMaxSeqLengthKey = "_phasor_max_seq_length";

// The length rule's limit of text (models/length_rule.h), or the value set on
// the model; None if nothing bounds text.
py::object MaxSeqLength(py::handle self) {
  const int64_t set = MaxSeqLengthSet(self);
  if (set > 0) return py::int_(set);
  const Model& model = self.cast<const Model&>();
  std::shared_ptr<const tokenizers::Tokenizer> tokenizer;
  try {
    py::gil_scoped_release release;
    tokenizer = model.tokenizer();
  } catch (const Error&) {
    // A folder without a tokenizer: the other bounds still hold.
  }
  const LengthRule rule = TextLengthRule(model, tokenizer.get(), std::nullopt, 0);
  return rule.limit > 0 ? py::object(py::int_(rule.limit)) : py::object(py::none());
}

// model.max_seq_length = N, as SentenceTransformer's: texts are cut (or
// refused) at N from then on, N at most the model's positions; None: the
// folder's limit again.
void SetMaxSeqLength(py::handle self, py::handle value) {
  const py::dict dict = self.attr("__dict__");
  if (value.is_none()) {
    if (dict.contains(kMaxSeqLengthKey)) PyDict_DelItemString(dict.ptr(), kMaxSeqLengthKey);
    return;
  }
  const Model& model = self.cast<const Model&>();
  int64_t n = 0;
  try {
    n = ToInt(value, "max_seq_length");
  } catch (const Error&) {
    throw Error("max_seq_length must be an int or None, got " + TypeNameOf(value));
  }
  const int64_t positions = model.max_sequence_length();
  if (n < 1 || (positions > 0 && n > positions)) {
    throw Error("max_seq_length must be in [1, " + std::to_string(positions) + "] (" +
                model.max_sequence_length_of() + "), got " + std::to_string(n));
  }
  dict[kMaxSeqLengthKey] = py::int_(n);
}

}  // namespace

int64_t MaxSeqLengthSet(py::handle self) {
  const py::dict dict = self.attr("__dict__");
  return dict.contains(kMaxSeqLengthKey) ? dict[kMaxSeqLengthKey].cast<int64_t>() : 0;
}

namespace {

// The width of encode's default rows of text: after the folder's Dense
// modules for a sentence-transformers folder, else d_model.
int64_t SentenceDimension(const Model& model) {
  if (!IsSentenceTransformersFolder(model.folder())) return model.d_model();
  const PoolSpec declared = DeclaredPooling(*model.folder());
  EncodeOptions o;
  o.pool = declared.pooling;
  o.sentence_dense = declared.dense;
  return model.output_dim(o);
}

constexpr const char* kEncodeDoc =
    R"(encode(sentences, lengths=None, stage='final', pool=<default>, normalize=False, packed=False, batch_tokens=0, truncate=None, token_type_ids=None, prompt=None, prefix=None, batch_size=32, normalize_embeddings=False, convert_to_numpy=True, convert_to_tensor=False, show_progress_bar=None, output_value='sentence_embedding', prompt_name=None, device=None, precision='float32')

sentences (or ids=): a str, a list of str or of (str, str) pairs (tokenized by the model folder's own tokenizer, as Model.tokenize), or token ids: [batch, seq] integers (any integer dtype, or a list of equal-length lists), [seq] for one sequence, or a list of 1-D sequences of different lengths.

As SentenceTransformer.encode for a sentence-transformers folder (one with modules.json): text is pooled as the folder's modules say (pool='model': its Pooling, Dense and Normalize), one str gives [d], a list [n, d] float32 (convert_to_numpy=False: a list of 1-D arrays); normalize_embeddings=True (or normalize=True) gives unit L2 norms; text is cut at max_seq_length (truncate=False: a longer text is a phasor.Error naming it, its tokens, the limit and where the limit comes from). show_progress_bar=True encodes a list of texts batch_size at a time with a bar on stderr ("Batches: k/N"); otherwise batch_size is checked and not used: phasor batches by tokens (batch_tokens; 0: 2048 or the longest sequence). Results are the same bits for any batch_size. convert_to_tensor=True is refused (phasor does not use torch). output_value='token_embeddings': every token's row. prompt_name: as prompt. device: None or 'cpu'; precision: 'float32' only.

Otherwise (token ids, or a folder without modules.json) the default is every row: float32 [batch, seq, d_model] ([seq, d_model] for 1-D ids or one str; a list of [len_i, d_model] arrays for a list of different lengths or of texts): the final hidden states, or with stage='embeddings' the encoder's input; padding rows are 0. lengths: [batch] tokens per sequence of array ids, the rest masked as padding. pool='mean', 'cls' or 'max': one row per sequence, [batch, d_model] (normalize=True: unit L2 norm); pool='model': what a sentence-transformers folder declares (its Dense modules too: [batch, out_features]). stage='pooler' (BERT's pooler output) or stage='logits' (a classification checkpoint's head, [batch, num_labels]): one row per sequence from its first token, without pool. packed=True: (rows [total tokens, d_model], offsets [batch + 1]). Trailing pad ids inside given lengths or list items warn (phasor.Warning). Token ids past the model's positions (max_sequence_length) are an error unless truncate=True, which keeps the first ones; text follows max_seq_length (truncate=None: cut for a sentence-transformers folder, refused for any other). token_type_ids: laid out as ids, each token's type (BERT's segments); None: all 0. prompt names a prompt of config_sentence_transformers.json, prefix is text put before each text.

A wrong type is a phasor.Error naming the argument; an unknown keyword a TypeError naming it.)";

}  // namespace

void BindSentenceTransformers(py::class_<Model>& model) {
  model.def("encode", &Encode, kEncodeDoc)
      .def("similarity", &Similarity, py::arg("a"), py::arg("b"),
           "Similarity of every row of a with every row of b, float32 [len(a), len(b)], as "
           "SentenceTransformer.similarity (a 1-D array is one row): cosine, or what the "
           "folder's similarity_fn_name says ('dot', 'euclidean', 'manhattan': the negated "
           "distance).")
      .def_property(
          "max_seq_length", &MaxSeqLength, &SetMaxSeqLength,
          "The most tokens a text keeps (None if nothing bounds it): the least of the "
          "tokenizer's model_max_length, a sentence-transformers folder's max_seq_length and "
          "the model's positions (max_sequence_length). Set it (at most max_sequence_length) "
          "to cut texts elsewhere, as SentenceTransformer.max_seq_length; None: the folder's.")
      .def_property_readonly("similarity_fn_name", &SimilarityFnName,
                             "config_sentence_transformers.json's similarity_fn_name "
                             "('cosine' without one): what similarity computes.")
      .def("get_sentence_embedding_dimension", &SentenceDimension,
           "The width of encode's rows of text: after the folder's Dense modules for a "
           "sentence-transformers folder, else d_model.");
  BindCrossEncoder(model);
}

}  // namespace phasor::python

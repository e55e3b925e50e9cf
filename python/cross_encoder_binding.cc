// A cross-encoder's surface, as sentence-transformers' CrossEncoder: a
// checkpoint with a sequence-classification head scores (text_a, text_b)
// pairs with its logits (Model.encode's stage='logits').
//
//   scores = model.predict([("query", "doc a"), ("query", "doc b")], activation="sigmoid")
//   model.rank("query", ["doc a", "doc b"], top_k=1)  # [{"corpus_id": 1, "score": 0.73}]
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "engine/error.h"
#include "models/phasor.h"
#include "python/bindings.h"
#include "python/encode.h"
#include "python/keywords.h"

namespace phasor::python {
namespace {

enum class Activation { kNone, kSigmoid, kSoftmax };

Activation ActivationOf(const Arguments& a) {
  const std::optional<std::string> name = OptionalStrArgument(a, "activation");
  if (!name) return Activation::kNone;
  if (*name == "sigmoid") return Activation::kSigmoid;
  if (*name == "softmax") return Activation::kSoftmax;
  throw Error(a.function() + ": activation must be None, 'sigmoid' or 'softmax', got '" + *name +
              "'");
}

// logits [n, labels] in place: each value's sigmoid, or each row's softmax.
void Activate(Activation act, float* logits, int64_t n, int64_t labels) {
  for (int64_t i = 0; i < n; ++i) {
    float* row = logits + i * labels;
    if (act == Activation::kSigmoid) {
      for (int64_t k = 0; k < labels; ++k) row[k] = 1.0f / (1.0f + std::exp(-row[k]));
    } else if (act == Activation::kSoftmax) {
      const float top = *std::max_element(row, row + labels);
      float sum = 0;
      for (int64_t k = 0; k < labels; ++k) sum += row[k] = std::exp(row[k] - top);
      for (int64_t k = 0; k < labels; ++k) row[k] /= sum;
    }
  }
}

bool IsStrPair(py::handle v) {
  if (!(py::isinstance<py::tuple>(v) || py::isinstance<py::list>(v)) || py::len(v) != 2)
    return false;
  const auto s = py::reinterpret_borrow<py::sequence>(v);
  return py::isinstance<py::str>(s[0]) && py::isinstance<py::str>(s[1]);
}

// The logits of pairs [n, labels] (a copy the caller may change), the GIL
// released while the model runs.
py::array_t<float> PairLogits(py::handle self, const py::list& pairs, const Arguments& a) {
  // The keywords that only say how to batch or report: checked, not used.
  IntArgument(a, "batch_size", 1, int64_t{1} << 31);
  OptionalBoolArgument(a, "show_progress_bar");
  EncodeRequest r;
  r.input = pairs;
  r.lengths = r.token_type_ids = r.prompt = r.prefix = r.pool = py::none();
  r.stage = "logits";
  r.truncate = OptionalBoolArgument(a, "truncate");
  r.max_seq_length = MaxSeqLengthSet(self);
  py::object out = EncodeModel(self.cast<const Model&>(), r);
  return py::array_t<float, py::array::c_style>::ensure(out);
}

py::object Predict(py::handle self, const py::args& args, const py::kwargs& kwargs) {
  const py::object none = py::none();
  const Arguments a("predict",
                    {{"sentences"},
                     {"batch_size", py::int_(32)},
                     {"show_progress_bar", none},
                     {"activation", none},
                     {"convert_to_numpy", py::bool_(true)},
                     {"truncate", none}},
                    args, kwargs);
  const Activation act = ActivationOf(a);
  const bool to_numpy = BoolArgument(a, "convert_to_numpy");
  const py::handle in = a["sentences"];
  const bool one = IsStrPair(in);
  if (!one && !py::isinstance<py::list>(in) && !py::isinstance<py::tuple>(in)) {
    throw Error("predict: sentences must be a (str, str) pair or a list of them, got " +
                TypeNameOf(in));
  }
  py::list pairs;
  if (one) {
    pairs.append(in);
  } else {
    for (const py::handle p : in) {
      if (!IsStrPair(p)) {
        throw Error("predict: sentences[" + std::to_string(py::len(pairs)) +
                    "] must be a (str, str) pair, got " + TypeNameOf(p));
      }
      pairs.append(p);
    }
  }
  if (py::len(pairs) == 0) return py::array_t<float>(0);
  py::array_t<float> logits = PairLogits(self, pairs, a);
  const int64_t n = logits.shape(0), labels = logits.shape(1);
  Activate(act, logits.mutable_data(), n, labels);
  // One label: a score a pair, [n]; several: [n, labels].
  py::object out = labels == 1 ? logits.attr("reshape")(n) : py::object(logits);
  if (one) return out[py::int_(0)];
  return to_numpy ? out : py::object(py::list(out));
}

py::list Rank(py::handle self, const py::args& args, const py::kwargs& kwargs) {
  const py::object none = py::none();
  const Arguments a("rank",
                    {{"query"},
                     {"documents"},
                     {"top_k", none},
                     {"return_documents", py::bool_(false)},
                     {"batch_size", py::int_(32)},
                     {"show_progress_bar", none},
                     {"activation", py::str("sigmoid")},
                     {"truncate", none}},
                    args, kwargs);
  if (!py::isinstance<py::str>(a["query"]))
    throw Error("rank: query must be a str, got " + TypeNameOf(a["query"]));
  const py::handle docs = a["documents"];
  if (!py::isinstance<py::list>(docs) && !py::isinstance<py::tuple>(docs))
    throw Error("rank: documents must be a list of str, got " + TypeNameOf(docs));
  const Activation act = ActivationOf(a);
  const bool return_documents = BoolArgument(a, "return_documents");
  const int64_t n = static_cast<int64_t>(py::len(docs));
  const int64_t top_k = a["top_k"].is_none() ? n : IntArgument(a, "top_k", 1, int64_t{1} << 40);
  py::list pairs;
  for (const py::handle d : docs) {
    if (!py::isinstance<py::str>(d)) {
      throw Error("rank: documents[" + std::to_string(py::len(pairs)) + "] must be a str, got " +
                  TypeNameOf(d));
    }
    pairs.append(py::make_tuple(a["query"], d));
  }
  py::list ranked;
  if (n == 0) return ranked;
  py::array_t<float> logits = PairLogits(self, pairs, a);
  if (logits.shape(1) != 1) {
    throw Error("rank needs one score a pair (num_labels 1); the classification head has " +
                std::to_string(logits.shape(1)) + " labels: predict gives them all");
  }
  float* scores = logits.mutable_data();
  Activate(act, scores, n, 1);
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return scores[x] > scores[y]; });
  for (int64_t k = 0; k < std::min(n, top_k); ++k) {
    const int64_t i = order[static_cast<size_t>(k)];
    py::dict item;
    item["corpus_id"] = i;
    item["score"] = static_cast<double>(scores[i]);
    if (return_documents) item["text"] = pairs[static_cast<size_t>(i)].cast<py::tuple>()[1];
    ranked.append(item);
  }
  return ranked;
}

constexpr const char* kPredictDoc =
    R"(predict(sentences, batch_size=32, show_progress_bar=None, activation=None, convert_to_numpy=True, truncate=None)

A cross-encoder's scores (a checkpoint with a sequence-classification head), as CrossEncoder.predict: sentences is one (str, str) pair or a list of them, each encoded as BERT's segments A and B. Returns float32 [n] for a head of one label ([n, num_labels] for more; one pair: its score, or its row). activation=None gives the raw logits (unlike CrossEncoder, whose default for one label is the sigmoid), 'sigmoid' each logit's sigmoid, 'softmax' each row's softmax. convert_to_numpy=False: a list. batch_size and show_progress_bar are checked and otherwise ignored (phasor batches by tokens). truncate: as Model.encode's for text.)";

constexpr const char* kRankDoc =
    R"(rank(query, documents, top_k=None, return_documents=False, batch_size=32, show_progress_bar=None, activation='sigmoid', truncate=None)

A cross-encoder of one label ranks documents for query, as CrossEncoder.rank: a list of {'corpus_id': i, 'score': s} (and 'text' with return_documents=True), highest score first (ties in documents' order), the top_k first ones only if given. score: the sigmoid of the pair (query, documents[i])'s logit, as the server's /rerank (activation=None: the logit).)";

}  // namespace

void BindCrossEncoder(py::class_<Model>& model) {
  model.def("predict", &Predict, kPredictDoc).def("rank", &Rank, kRankDoc);
}

}  // namespace phasor::python

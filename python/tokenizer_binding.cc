// phasor.Tokenizer: a folder's own tokenizer on its own (a folder with only
// tokenizer files is enough), and Model.tokenize.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/model_folder.h"
#include "models/phasor.h"
#include "python/bindings.h"
#include "python/convert.h"
#include "python/encode.h"
#include "python/keywords.h"
#include "python/texts.h"
#include "tokenizers/tokenizer.h"

namespace phasor::python {
namespace {

using TokenizerPtr = std::shared_ptr<const tokenizers::Tokenizer>;

struct PyTokenizer {
  TokenizerPtr tokenizer;
  std::string directory;
  std::shared_ptr<const ModelFolder> folder;  // opened once: prompts come from it
};

PyTokenizer LoadTokenizer(py::handle path) {
  const std::string dir = py::module_::import("os").attr("fsdecode")(path).cast<std::string>();
  PyTokenizer t;
  t.directory = dir;
  {
    py::gil_scoped_release release;
    t.folder = ModelFolder::Open(dir);
    t.tokenizer = tokenizers::Tokenizer::Load(*t.folder);
  }
  return t;
}

py::dict Tokenize(const tokenizers::Tokenizer& tokenizer, const ModelFolder* folder,
                  py::handle texts_in, const TextArgs& args, int64_t model_limit,
                  py::handle return_offsets_mapping) {
  if (!IsTexts(texts_in))
    throw Error("texts must be a str, or a list of str or of (str, str) pairs");
  if (!py::isinstance<py::bool_>(return_offsets_mapping))
    throw Error("return_offsets_mapping must be True or False, got " +
                TypeNameOf(return_offsets_mapping));
  TextOptions o = ToTextOptions(folder, tokenizer, args, model_limit);
  // Python's str indices are code points, as transformers' offset_mapping.
  if (return_offsets_mapping.cast<bool>()) o.offsets = tokenizers::OffsetUnit::kCodePoints;
  const Texts texts = ToTexts(texts_in);
  const TokenizedLines lines = TokenizeTexts(tokenizer, texts, o);
  return EncodingsToDict(lines, texts.one, o.offsets != tokenizers::OffsetUnit::kNone);
}

// tokenize's parameters; truncate's default differs (Model.tokenize: None).
std::vector<Parameter> TokenizeParameters(const py::object& truncate) {
  const py::object none = py::none();
  return {{"texts"},
          {"add_special_tokens", py::bool_(true)},
          {"truncate", truncate},
          {"max_length", none},
          {"prompt", none},
          {"prefix", none},
          {"return_offsets_mapping", py::bool_(false)}};
}

TextArgs TextArgsOf(const Arguments& a, py::handle truncate) {
  return TextArgs{a["add_special_tokens"], truncate, a["max_length"], a["prompt"], a["prefix"]};
}

constexpr const char* kTokenizeDoc =
    "tokenize(texts, add_special_tokens=True, truncate=False, max_length=None, prompt=None, "
    "prefix=None, return_offsets_mapping=False)\n\n"
    "texts: a str, a list of str, or a list of (str, str) pairs (BERT's segments A and B). "
    "Returns {'input_ids': ..., 'token_type_ids': ...}, a list a text (flat lists for one str), "
    "the ids Hugging Face's tokenizer of the folder gives. add_special_tokens=False leaves out "
    "[CLS]/[SEP] and their like; truncate=True cuts each text to the tokenizer's "
    "model_max_length (a pair longest first), max_length to that many ids; prompt names a "
    "prompt of config_sentence_transformers.json, prefix is text put before each text. "
    "return_offsets_mapping=True adds 'offset_mapping': each token's (begin, end) in code "
    "points of its text (str indices), (0, 0) for special tokens, as transformers gives it.";

}  // namespace

void BindTokenizer(py::module_& m) {
  py::class_<PyTokenizer>(m, "Tokenizer",
                          "A model folder's own tokenizer: tokenizer.json (with "
                          "tokenizer_config.json), vocab.txt, vocab.json + merges.txt, "
                          "sentencepiece.bpe.model or source.spm + vocab.json. Its methods may "
                          "be called from several Python threads at once.")
      .def(py::init(&LoadTokenizer), py::arg("path"))
      .def(
          "tokenize",
          [](const PyTokenizer& t, const py::args& args, const py::kwargs& kwargs) {
            const Arguments a("tokenize", TokenizeParameters(py::bool_(false)), args, kwargs);
            return Tokenize(*t.tokenizer, t.folder.get(), a["texts"], TextArgsOf(a, a["truncate"]),
                            -1, a["return_offsets_mapping"]);
          },
          kTokenizeDoc)
      .def_property_readonly("vocab_size",
                             [](const PyTokenizer& t) { return t.tokenizer->vocab_size(); })
      .def_property_readonly(
          "model_max_length",
          [](const PyTokenizer& t) -> py::object {
            const int64_t n = t.tokenizer->model_max_length();
            return n > 0 ? py::object(py::int_(n)) : py::object(py::none());
          },
          "tokenizer_config.json's model_max_length, or None.")
      .def("token_to_id",
           [](const PyTokenizer& t, const std::string& token) -> py::object {
             const auto id = t.tokenizer->TokenToId(token);
             return id ? py::object(py::int_(*id)) : py::object(py::none());
           })
      .def("__repr__", [](const PyTokenizer& t) {
        return "phasor.Tokenizer('" + t.directory + "', " + t.tokenizer->description() + ")";
      });
}

// Model.tokenize: the model folder's tokenizer, cut as Model.encode cuts text
// (models/length_rule.h: by default for a sentence-transformers folder, at
// max_seq_length) unless max_length says where.
py::dict ModelTokenize(py::handle self, const py::args& args, const py::kwargs& kwargs) {
  const Model& model = self.cast<const Model&>();
  const Arguments a("tokenize", TokenizeParameters(py::none()), args, kwargs);
  const std::optional<bool> truncate = OptionalBoolArgument(a, "truncate");
  TokenizerPtr tokenizer;
  {
    py::gil_scoped_release release;
    tokenizer = model.tokenizer();
  }
  py::object cut = py::reinterpret_borrow<py::object>(a["max_length"]);
  if (cut.is_none()) {
    const LengthRule rule = TextLengthRule(model, tokenizer.get(), truncate, MaxSeqLengthSet(self));
    cut = CutOf(rule);
  }
  TextArgs text = TextArgsOf(a, py::bool_(false));
  text.max_length = cut;
  return Tokenize(*tokenizer, model.folder(), a["texts"], text, model.max_sequence_length(),
                  a["return_offsets_mapping"]);
}

}  // namespace phasor::python

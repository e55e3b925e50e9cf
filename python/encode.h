// Model.encode's computation, shared by Model.encode (with phasor's and
// sentence-transformers' keywords), Model.predict and Model.rank.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>

#include "models/length_rule.h"
#include "models/phasor.h"

namespace phasor::python {

namespace py = pybind11;

// One call, its keywords read (the Python objects are read with the GIL held).
struct EncodeRequest {
  py::handle input;           // ids (array-like or a list of sequences) or texts
  py::handle lengths;         // None or [batch] real tokens of array ids
  py::handle token_type_ids;  // None or laid out as ids
  py::handle prompt;          // None or a prompt's name (texts only)
  py::handle prefix;          // None or text put before each text
  std::string stage = "final";
  // None or "none": every row; "mean", "cls", "max", ...; "model": the
  // folder's modules.json.
  py::handle pool;
  bool normalize = false;
  bool packed = false;
  int64_t batch_tokens = 0;
  // Texts: nullopt for the folder's default (models/length_rule.h); ids: cut
  // at the model's positions when true (nullopt: false).
  std::optional<bool> truncate;
  // Model.max_seq_length as the caller set it (0: not set, the folder's).
  int64_t max_seq_length = 0;
  // Texts that are a part of the caller's list: the index of the first, for messages.
  int64_t first_index = 0;
};

// The length rule of text (models/length_rule.h) for model and its tokenizer
// (null if it has none), its limit replaced by max_seq_length if set.
LengthRule TextLengthRule(const Model& model, const tokenizers::Tokenizer* tokenizer,
                          std::optional<bool> truncate, int64_t max_seq_length);

// Where rule cuts text, as a max_length keyword: None when it does not cut, or
// when its limit is past any text one call holds (a model without a table of
// positions: 2^40).
py::object CutOf(const LengthRule& rule);

// The max_seq_length set on the Python object self (a phasor.Model), 0 if none.
int64_t MaxSeqLengthSet(py::handle self);

// Encodes as Model.encode documents it; phasor.Error with the CLI's messages.
// The GIL is released while C++ computes.
py::object EncodeModel(const Model& model, const EncodeRequest& r);

}  // namespace phasor::python

// Texts from Python, tokenized by a model folder's own tokenizer
// (models/text_input.h): a str, a list (or tuple) of str, or of (str, str)
// pairs.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

#include "models/text_input.h"

namespace phasor::python {

namespace py = pybind11;

struct Texts {
  bool one = false;            // a single str (or pair) rather than a list
  std::vector<std::string> a;  // each text (a pair's first)
  std::vector<std::string> b;  // each pair's second text; empty for single texts
  int64_t first = 0;           // the index of a[0] in the caller's list (a part of it)
  bool pairs() const { return !b.empty(); }
  // Text i in messages: "texts[7]", or "the text".
  std::string Name(int64_t i) const {
    return one ? std::string("the text") : "texts[" + std::to_string(first + i) + "]";
  }
};

// Whether value is text input rather than ids: a str, or a non-empty list or
// tuple whose first item is a str or a (str, str) pair.
bool IsTexts(py::handle value);

// Reads texts (with the GIL held); Error naming the item for a mix of kinds, a
// pair that is not two str, or a str that is not valid text (a lone surrogate).
Texts ToTexts(py::handle value);

// Tokenizes texts on the worker threads, the GIL released.
TokenizedLines TokenizeTexts(const tokenizers::Tokenizer& tokenizer, const Texts& texts,
                             const TextOptions& options);

// A call's keywords about text, as Python gave them.
struct TextArgs {
  py::handle add_special_tokens;  // a bool
  py::handle truncate;            // a bool: cut to the tokenizer's (and the model's) length
  py::handle max_length;          // None or an int
  py::handle prompt;              // None or a name in config_sentence_transformers.json
  py::handle prefix;              // None or a str
};

// The text options of args; model_limit as TextOptionsOf's.
TextOptions ToTextOptions(const ModelFolder* folder, const tokenizers::Tokenizer& tokenizer,
                          const TextArgs& args, int64_t model_limit);

// {"input_ids": [[...], ...], "token_type_ids": [[...], ...]} (flat lists for
// one text), as a Hugging Face tokenizer's call returns them.
// With offsets, "offset_mapping" too: each row's lines.spans as (begin, end).
py::dict EncodingsToDict(const TokenizedLines& lines, bool one, bool offsets = false);

}  // namespace phasor::python

// Pre-tokenizers: split a normalized segment into the pieces the model
// tokenizes one by one, as the Hugging Face tokenizers pre-tokenizer of the
// same name does (same fields, same defaults, same splits).
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "tokenizers/pieces.h"

namespace phasor::tokenizers {

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Splits every piece further, in order, in place (ByteLevel and Metaspace
  // also rewrite the text of each piece). Empty pieces are dropped. Safe to
  // call from many threads at once.
  virtual void Split(Pieces& pieces) const = 0;
};

// The pre-tokenizer a tokenizer.json "pre_tokenizer" value describes; nullptr
// for null. Kinds: BertPreTokenizer, ByteLevel, Metaspace, Whitespace,
// WhitespaceSplit, Punctuation, Digits, Split, Sequence. Errors as
// MakeNormalizer's.
std::unique_ptr<PreTokenizer> MakePreTokenizer(const nlohmann::json& spec,
                                               const std::string& where);

// GPT-2's byte-to-unicode map: the code point that stands for byte b in a
// byte-level vocabulary (printable Latin-1 bytes stand for themselves).
char32_t ByteToUnicode(unsigned char b);

}  // namespace phasor::tokenizers

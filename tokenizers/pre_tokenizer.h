// Pre-tokenizers: split a normalized segment into the pieces the model
// tokenizes one by one, as the Hugging Face tokenizers pre-tokenizer of the
// same name does (same fields, same defaults, same splits).
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "tokenizers/aligned_text.h"

namespace phasor::tokenizers {

struct Piece {
  std::string text;  // UTF-8
  // The piece begins where the whole input text begins (what Metaspace's
  // prepend_scheme "first" asks); only the first piece of a split piece keeps it.
  bool at_text_start = false;
  // On the offsets path: [text.size()] each byte's span in the original
  // (aligned_text.h), kept through every split and rewrite; empty otherwise.
  std::vector<Span> align = {};
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Splits every piece further, in order, in place (ByteLevel and Metaspace
  // also rewrite the text of each piece). Empty pieces are dropped. Safe to
  // call from many threads at once.
  virtual void Split(std::vector<Piece>& pieces) const = 0;
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

// Normalizers: the first step of a tokenizer.json pipeline, rewriting the
// text of a segment before it is split. Each kind is the Hugging Face
// tokenizers normalizer of the same name, with the same fields and defaults.
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace phasor::tokenizers {

struct AlignedText;  // aligned_text.h

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  // Rewrites text (valid UTF-8 in, valid UTF-8 out). Safe to call from many
  // threads at once.
  virtual void Normalize(std::string& text) const = 0;
  // The same rewrite, keeping each character's span in the original as the
  // Rust crate's NormalizedString does (the offsets path).
  virtual void NormalizeAligned(AlignedText& text) const = 0;
};

// The normalizer a tokenizer.json "normalizer" value describes; nullptr for
// null. Kinds (normalizers.cc lists them): BertNormalizer, NFC, NFD, NFKC,
// NFKD, Lowercase, StripAccents, Strip, Replace, Prepend, Precompiled,
// Sequence, Nmt, ByteLevel. where names the value in
// messages ("tokenizer.json: normalizer"); an unknown "type", a missing or
// mistyped field, or a bad pattern throws Error naming where and the field.
std::unique_ptr<Normalizer> MakeNormalizer(const nlohmann::json& spec, const std::string& where);

}  // namespace phasor::tokenizers

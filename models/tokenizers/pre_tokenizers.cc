// Placeholder until the pre-tokenizers land.
#include <nlohmann/json.hpp>

#include "engine/error.h"
#include "models/tokenizers/pre_tokenizer.h"

namespace phasor::tokenizers {
std::unique_ptr<PreTokenizer> MakePreTokenizer(const nlohmann::json& spec,
                                               const std::string& where) {
  if (spec.is_null()) return nullptr;
  throw Error(where + ": not implemented");
}
char32_t ByteToUnicode(unsigned char b) { return b; }
}  // namespace phasor::tokenizers

// libFuzzer target: text lines through the tokenizers of real vocabularies
// (the parity tests' folders: WordPiece, byte-level BPE, Unigram with its
// charsmap) as `tokenize` and `encode --text-file` read them. The first byte
// picks the folder and the options (pairs, special tokens, truncation,
// invalid UTF-8 replaced or refused); the rest is the file. Any input either
// tokenizes or throws phasor::Error; nothing else may happen (ASan, UBSan,
// a hang or a crash is a finding). Every id must be inside the vocabulary.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "engine/error.h"
#include "engine/memory_limit.h"
#include "models/text_input.h"
#include "tests/fuzz/harness.h"
#include "tokenizers/tokenizer.h"

namespace {

constexpr const char* kFolders[] = {"bert-uncased", "bert-cased", "roberta-bpe", "xlmr-unigram"};
std::shared_ptr<const phasor::tokenizers::Tokenizer> tokenizers[4];

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  phasor::SetMemoryLimit(phasor::fuzz::kFuzzMemoryLimit);
  for (int i = 0; i < 4; ++i)
    tokenizers[i] = phasor::tokenizers::Tokenizer::Load(std::string(PHASOR_TOKENIZER_FOLDERS) +
                                                        "/" + kFolders[i]);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const auto& tok = *tokenizers[mode & 3];
  phasor::TextOptions o;
  o.pairs = mode & 4;
  o.add_special_tokens = !(mode & 8);
  o.replace_invalid_utf8 = mode & 16;
  o.max_length = (mode & 32) ? 8 : 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    const phasor::TokenizedLines lines = phasor::TokenizeLines(tok, text, 1, "fuzz", o);
    for (const int32_t id : lines.batch.ids)
      if (id < 0 || id >= tok.vocab_size()) std::abort();
    if (o.max_length > 0)
      for (const int64_t n : lines.batch.lengths)
        if (n > o.max_length) std::abort();
  } catch (const phasor::Error&) {
  }
  return 0;
}

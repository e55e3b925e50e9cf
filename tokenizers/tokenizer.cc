// The pipeline of one text (added tokens, normalizer, pre-tokenizer, model,
// post-processor) and truncation. Reading the files is tokenizer_files.cc's.
#include "tokenizers/tokenizer.h"

#include <algorithm>
#include <utility>

#include "engine/error.h"
#include "tokenizers/added_tokens.h"
#include "tokenizers/model.h"
#include "tokenizers/normalizer.h"
#include "tokenizers/post_processor.h"
#include "tokenizers/pre_tokenizer.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

// Per-thread buffers of EncodeText, sized by the longest text seen and reused.
struct Scratch {
  std::vector<TextSplit> raw, normalized;
  std::vector<Piece> pieces;
  std::string segment;
};

Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

void CheckUtf8(std::string_view text) {
  const size_t bad = FindInvalidUtf8(text);
  if (bad != std::string_view::npos)
    throw Error("byte offset " + std::to_string(bad) + ": invalid UTF-8");
}

// Hugging Face's truncation="longest_first" on a text or a pair, as the Rust
// crate 0.23 cuts it: max_length counts the special tokens, available is what
// the texts may take once they are counted. A pair that fits is left alone;
// otherwise each text is first cut at max_length, then the shorter keeps all
// it has if the longer can give up enough, else both get half, the odd id
// going to the longer (the second on a tie). Crate 0.22 split the uncut
// lengths: lengths 4 and 3 with 3 to spare kept 2 and 1 there, 1 and 2 here
// (both cut to 3, a tie).
void TruncateLongestFirst(std::vector<int32_t>& a, std::vector<int32_t>* b, size_t max_length,
                          size_t available) {
  if (!b) {
    if (a.size() > available) a.resize(available);
    return;
  }
  if (a.size() + b->size() <= available) return;
  size_t n1 = std::min(a.size(), max_length), n2 = std::min(b->size(), max_length);
  const bool swap = n1 > n2;
  if (swap) std::swap(n1, n2);
  n2 = n1 > available ? n1 : std::max(n1, available - n1);
  if (n1 + n2 > available) {
    n1 = available / 2;
    n2 = available - n1;
  }
  if (swap) std::swap(n1, n2);
  if (a.size() > n1) a.resize(n1);
  if (b->size() > n2) b->resize(n2);
}

}  // namespace

Tokenizer::Tokenizer() = default;
Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;

void Tokenizer::EncodeText(std::string_view text, std::vector<int32_t>& ids) const {
  // No call nests in another on one thread, so its buffers can be reused.
  Scratch& s = ThreadScratch();
  std::vector<TextSplit>& raw = s.raw;
  std::vector<TextSplit>& normalized = s.normalized;
  std::vector<Piece>& pieces = s.pieces;
  std::string& segment = s.segment;

  raw.clear();
  if (added_ && !added_->empty(true)) {
    added_->Split(text, true, raw);
  } else if (!text.empty()) {
    raw.push_back({0, text.size(), -1});
  }
  for (const TextSplit& part : raw) {
    if (part.id >= 0) {
      ids.push_back(part.id);
      continue;
    }
    segment.assign(text.substr(part.begin, part.end - part.begin));
    if (normalizer_) normalizer_->Normalize(segment);
    normalized.clear();
    if (added_ && !added_->empty(false)) {
      added_->Split(segment, false, normalized);
    } else if (!segment.empty()) {
      normalized.push_back({0, segment.size(), -1});
    }
    for (const TextSplit& sub : normalized) {
      if (sub.id >= 0) {
        ids.push_back(sub.id);
        continue;
      }
      pieces.resize(1);
      pieces[0].text.assign(segment, sub.begin, sub.end - sub.begin);
      pieces[0].at_text_start = part.begin == 0 && sub.begin == 0;
      if (pre_tokenizer_) pre_tokenizer_->Split(pieces);
      for (const Piece& piece : pieces)
        if (!piece.text.empty()) model_->Tokenize(piece.text, ids);
    }
  }
}

Encoding Tokenizer::Encode(std::string_view text, const TokenizeOptions& options) const {
  Encoding out;
  Encode(text, options, out);
  return out;
}

Encoding Tokenizer::EncodePair(std::string_view a_text, std::string_view b_text,
                               const TokenizeOptions& options) const {
  Encoding out;
  EncodePair(a_text, b_text, options, out);
  return out;
}

void Tokenizer::Encode(std::string_view text, const TokenizeOptions& options, Encoding& out) const {
  CheckUtf8(text);
  thread_local std::vector<int32_t> a;  // the text's ids, before the layout
  a.clear();
  EncodeText(text, a);
  const int64_t special = options.add_special_tokens ? SpecialTokenCount(false) : 0;
  if (options.max_length > 0) {
    if (options.max_length < special)
      throw Error("a length of " + std::to_string(options.max_length) +
                  " cannot hold the special tokens (" + std::to_string(special) + ")");
    TruncateLongestFirst(a, nullptr, static_cast<size_t>(options.max_length),
                         static_cast<size_t>(options.max_length - special));
  }
  if (post_processor_) {
    post_processor_->Process(a, nullptr, options.add_special_tokens, out);
  } else {
    ConcatenateWithoutSpecialTokens(a, nullptr, out);
  }
}

void Tokenizer::EncodePair(std::string_view a_text, std::string_view b_text,
                           const TokenizeOptions& options, Encoding& out) const {
  CheckUtf8(a_text);
  CheckUtf8(b_text);
  thread_local std::vector<int32_t> a, b;
  a.clear();
  b.clear();
  EncodeText(a_text, a);
  EncodeText(b_text, b);
  const int64_t special = options.add_special_tokens ? SpecialTokenCount(true) : 0;
  if (options.max_length > 0) {
    if (options.max_length < special)
      throw Error("a length of " + std::to_string(options.max_length) +
                  " cannot hold the special tokens of a pair (" + std::to_string(special) + ")");
    TruncateLongestFirst(a, &b, static_cast<size_t>(options.max_length),
                         static_cast<size_t>(options.max_length - special));
  }
  if (post_processor_) {
    post_processor_->Process(a, &b, options.add_special_tokens, out);
  } else {
    ConcatenateWithoutSpecialTokens(a, &b, out);
  }
}

int64_t Tokenizer::SpecialTokenCount(bool pair) const {
  return post_processor_ ? post_processor_->AddedCount(pair) : 0;
}

int32_t Tokenizer::vocab_size() const {
  int32_t n = model_->VocabSize();
  if (added_)
    for (const AddedToken& t : added_->tokens()) n = std::max(n, t.id + 1);
  return n;
}

std::optional<int32_t> Tokenizer::TokenToId(std::string_view token) const {
  if (added_)
    for (const AddedToken& t : added_->tokens())
      if (t.content == token) return t.id;
  return model_->TokenToId(token);
}

}  // namespace phasor::tokenizers

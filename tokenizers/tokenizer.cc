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
#include "tokenizers/recent_pieces.h"
#include "tokenizers/token_offsets.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

// Per-thread buffers of EncodeText, sized by the longest text seen and reused.
struct Scratch {
  std::vector<TextSplit> raw, normalized;
  Pieces pieces;
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
void TruncateLongestFirst(TextTokens& a, TextTokens* b, size_t max_length, size_t available) {
  if (!b) {
    if (a.ids.size() > available) a.Resize(available);
    return;
  }
  if (a.ids.size() + b->ids.size() <= available) return;
  size_t n1 = std::min(a.ids.size(), max_length), n2 = std::min(b->ids.size(), max_length);
  const bool swap = n1 > n2;
  if (swap) std::swap(n1, n2);
  n2 = n1 > available ? n1 : std::max(n1, available - n1);
  if (n1 + n2 > available) {
    n1 = available / 2;
    n2 = available - n1;
  }
  if (swap) std::swap(n1, n2);
  if (a.ids.size() > n1) a.Resize(n1);
  if (b->ids.size() > n2) b->Resize(n2);
}

}  // namespace

Tokenizer::Tokenizer() : recent_(std::make_unique<RecentPieces>()) {}
Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;

void Tokenizer::EncodeText(std::string_view text, TextTokens& out) const {
  if (out.with_offsets) {
    EncodeTextWithOffsets(text, out);
    return;
  }
  std::vector<int32_t>& ids = out.ids;
  // No call nests in another on one thread, so its buffers can be reused.
  Scratch& s = ThreadScratch();
  std::vector<TextSplit>& raw = s.raw;
  std::vector<TextSplit>& normalized = s.normalized;
  Pieces& pieces = s.pieces;
  std::string& segment = s.segment;

  SplitAdded(text, true, raw);
  for (const TextSplit& part : raw) {
    if (part.id >= 0) {
      ids.push_back(part.id);
      continue;
    }
    // The part itself, or its normalized copy.
    std::string_view normal = text.substr(part.begin, part.end - part.begin);
    if (normalizer_) {
      segment.assign(normal);
      normalizer_->Normalize(segment);
      normal = segment;
    }
    SplitAdded(normal, false, normalized);
    for (const TextSplit& sub : normalized) {
      if (sub.id >= 0) {
        ids.push_back(sub.id);
        continue;
      }
      pieces.Reset(normal.substr(sub.begin, sub.end - sub.begin), part.begin == 0 && sub.begin == 0,
                   nullptr);
      if (pre_tokenizer_) pre_tokenizer_->Split(pieces);
      for (size_t i = 0; i < pieces.size(); ++i) {
        const std::string_view piece = pieces.text(i);
        const uint64_t hash = RecentPieces::Hash(piece);
        if (recent_->Get(piece, hash, ids)) continue;
        const size_t first = ids.size();
        model_->Tokenize(piece, ids);
        recent_->Put(piece, hash, ids.data() + first, ids.size() - first);
      }
    }
  }
}

void Tokenizer::SplitAdded(std::string_view text, bool raw, std::vector<TextSplit>& out) const {
  out.clear();
  if (added_ && !added_->empty(raw)) {
    added_->Split(text, raw, out);
  } else if (!text.empty()) {
    out.push_back({0, text.size(), -1});
  }
}

// As EncodeText, with the text's alignment carried through normalizer and
// pre-tokenizer (the crate's NormalizedString) so that each token's span
// in the normalized piece maps back to the text.
void Tokenizer::EncodeTextWithOffsets(std::string_view text, TextTokens& out) const {
  thread_local std::vector<TextSplit> raw, normalized;
  thread_local Pieces pieces;
  thread_local AlignedText segment;
  SplitAdded(text, true, raw);
  for (const TextSplit& part : raw) {
    const std::string_view part_text = text.substr(part.begin, part.end - part.begin);
    if (part.id >= 0) {
      out.ids.push_back(part.id);
      out.AddOffsets({part.begin, part.end}, part_text);
      continue;
    }
    segment.Reset(part_text, part.begin);
    if (normalizer_) normalizer_->NormalizeAligned(segment);
    SplitAdded(segment.text, false, normalized);
    for (const TextSplit& sub : normalized) {
      if (sub.id >= 0) {
        out.ids.push_back(sub.id);
        out.AddOffsets(ToOriginal(segment, sub.begin, sub.end),
                       std::string_view(segment.text).substr(sub.begin, sub.end - sub.begin));
        continue;
      }
      pieces.Reset(std::string_view(segment.text).substr(sub.begin, sub.end - sub.begin),
                   part.begin == 0 && sub.begin == 0, segment.align.data() + sub.begin);
      if (pre_tokenizer_) pre_tokenizer_->Split(pieces);
      for (size_t i = 0; i < pieces.size(); ++i)
        TokenizePiece(pieces.text(i), pieces.align(i), out);
    }
  }
}

void Tokenizer::TokenizePiece(std::string_view piece, const Span* align, TextTokens& out) const {
  thread_local std::vector<Span> spans;
  spans.clear();
  const size_t first = out.ids.size();
  model_->TokenizeWithOffsets(piece, out.ids, spans);
  for (size_t k = 0; k < spans.size(); ++k) {
    const auto [b, e] = spans[k];
    // The crate's convert_offsets: an empty span stays where it is in the
    // piece, one past the piece's end is left in the piece's own terms.
    Span span{b, e};
    if (b < e && e <= piece.size()) {
      span = {align[b].first, align[e - 1].second};
    } else if (b == e) {
      span = {align[0].first + b, align[0].first + e};
    }
    out.AddOffsets(span, model_->IdToToken(out.ids[first + k]));
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
  thread_local TextTokens a;  // the text's tokens, before the layout
  a.Clear(options.offsets != OffsetUnit::kNone);
  EncodeText(text, a);
  Finish(text, a, {}, nullptr, options, out);
}

void Tokenizer::EncodePair(std::string_view a_text, std::string_view b_text,
                           const TokenizeOptions& options, Encoding& out) const {
  CheckUtf8(a_text);
  CheckUtf8(b_text);
  thread_local TextTokens a, b;
  a.Clear(options.offsets != OffsetUnit::kNone);
  b.Clear(options.offsets != OffsetUnit::kNone);
  EncodeText(a_text, a);
  EncodeText(b_text, b);
  Finish(a_text, a, b_text, &b, options, out);
}

void Tokenizer::Finish(std::string_view a_text, TextTokens& a, std::string_view b_text,
                       TextTokens* b, const TokenizeOptions& options, Encoding& out) const {
  const int64_t special = options.add_special_tokens ? SpecialTokenCount(b != nullptr) : 0;
  if (options.max_length > 0) {
    if (options.max_length < special)
      throw Error("a length of " + std::to_string(options.max_length) + " cannot hold the " +
                  (b ? "special tokens of a pair (" : "special tokens (") +
                  std::to_string(special) + ")");
    TruncateLongestFirst(a, b, static_cast<size_t>(options.max_length),
                         static_cast<size_t>(options.max_length - special));
  }
  if (options.offsets == OffsetUnit::kCodePoints) {
    SpansToCodePoints(a_text, a);
    if (b) SpansToCodePoints(b_text, *b);
  }
  if (options.offsets != OffsetUnit::kNone && post_processor_ && post_processor_->trim_offsets()) {
    TrimOffsets(a, post_processor_->add_prefix_space());
    if (b) TrimOffsets(*b, post_processor_->add_prefix_space());
  }
  if (post_processor_) {
    post_processor_->Process(a, b, options.add_special_tokens, out);
  } else {
    ConcatenateWithoutSpecialTokens(a, b, out);
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

std::string Tokenizer::IdToToken(int32_t id) const {
  if (added_)
    for (const AddedToken& t : added_->tokens())
      if (t.id == id) return t.content;
  return std::string(model_->IdToToken(id));
}

std::optional<int32_t> Tokenizer::TokenToId(std::string_view token) const {
  if (added_)
    for (const AddedToken& t : added_->tokens())
      if (t.content == token) return t.id;
  return model_->TokenToId(token);
}

}  // namespace phasor::tokenizers

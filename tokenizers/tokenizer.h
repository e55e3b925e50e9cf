// A model's own tokenizer, read from its folder, giving the ids Hugging Face's
// tokenizers library gives for the same text: added tokens matched first,
// then normalizer, pre-tokenizer and model on the text between them, then the
// post-processor's special tokens and token types.
//
//   auto tok = phasor::tokenizers::Tokenizer::Load("all-MiniLM-L6-v2");
//   Encoding e = tok->Encode("A sentence.", {});   // e.ids: [CLS] ... [SEP]
//
// A Tokenizer is immutable once loaded; Encode may run on many threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizers/encoding.h"

namespace phasor {
class ModelFolder;  // engine/model_folder.h
}  // namespace phasor

namespace phasor::tokenizers {

class Normalizer;
class PreTokenizer;
class Model;
class AddedTokens;
class PostProcessor;
class RecentPieces;
struct TextTokens;
struct TextSplit;

// The unit of Encoding::offsets. kBytes: bytes of the UTF-8 text, as the
// Rust library's encode (OffsetType::Byte) and TEI's /tokenize give them.
// kCodePoints: Unicode scalar values (not UTF-16 units), as its
// encode_char_offsets, Python's transformers (str indices) and the Node
// bindings give them.
enum class OffsetUnit { kNone, kBytes, kCodePoints };

struct TokenizeOptions {
  bool add_special_tokens = true;
  // 0: none. Otherwise no encoding is longer (special tokens included): a
  // longer one is cut as Hugging Face's truncation="longest_first" cuts it.
  int64_t max_length = 0;
  OffsetUnit offsets = OffsetUnit::kNone;
};

class Tokenizer {
 public:
  // Reads the tokenizer of a model folder: tokenizer.json (with
  // tokenizer_config.json when present); without it vocab.txt (WordPiece, as
  // BertTokenizer), vocab.json + merges.txt (byte-level BPE, as
  // RobertaTokenizer), sentencepiece.bpe.model (fairseq's layout, as
  // XLMRobertaTokenizer) or source.spm + vocab.json (MarianTokenizer). Throws
  // Error naming the file and field of anything it cannot read, or the folder
  // if it holds no tokenizer. The folder's small JSON files
  // (tokenizer_config.json, special_tokens_map.json) are those it read at Open.
  static std::shared_ptr<const Tokenizer> Load(const ModelFolder& folder);
  // Load(*ModelFolder::Open(dir)).
  static std::shared_ptr<const Tokenizer> Load(const std::string& dir);
  // Whether the folder holds any of the files Load reads.
  static bool Exists(const ModelFolder& folder);

  // The ids of one text (valid UTF-8; Error naming the byte offset if not).
  Encoding Encode(std::string_view text, const TokenizeOptions& options) const;
  // The ids of a pair of texts (BERT's segments A and B).
  Encoding EncodePair(std::string_view a, std::string_view b, const TokenizeOptions& options) const;
  // The same into out, whose buffers are reused: a loop over many texts
  // allocates nothing once they have grown.
  void Encode(std::string_view text, const TokenizeOptions& options, Encoding& out) const;
  void EncodePair(std::string_view a, std::string_view b, const TokenizeOptions& options,
                  Encoding& out) const;

  // The ids the special tokens add to a single text or to a pair.
  int64_t SpecialTokenCount(bool pair) const;
  // tokenizer_config.json's model_max_length when it is a real bound, else 0.
  int64_t model_max_length() const { return model_max_length_; }
  // One past the largest id the tokenizer can give.
  int32_t vocab_size() const;
  std::optional<int32_t> TokenToId(std::string_view token) const;
  // The token id stands for: an added token's content, else the vocabulary's
  // string; empty for an id neither has.
  std::string IdToToken(int32_t id) const;
  // What was read, for messages: "tokenizer.json (WordPiece)".
  const std::string& description() const { return description_; }

  Tokenizer();
  ~Tokenizer();
  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;

 private:
  friend struct TokenizerBuilder;  // tokenizer_files.cc
  // The tokens of one text, without special tokens (with their offsets when
  // out.with_offsets), into out, cleared first.
  void EncodeText(std::string_view text, TextTokens& out) const;
  // The offsets path of EncodeText: the same ids, each with its span.
  void EncodeTextWithOffsets(std::string_view text, TextTokens& out) const;
  // text's parts around the added tokens matched at this level (raw: in the
  // text as given; else in normalized text), into out, cleared first.
  void SplitAdded(std::string_view text, bool raw, std::vector<TextSplit>& out) const;
  // The model's tokens of one pre-tokenized piece with their spans; align:
  // [piece.size()] each byte's span in the text.
  void TokenizePiece(std::string_view piece, const std::pair<size_t, size_t>* align,
                     TextTokens& out) const;
  // One text's tokens, cut to its share and laid out: Encode and EncodePair.
  void Finish(std::string_view a_text, TextTokens& a, std::string_view b_text, TextTokens* b,
              const TokenizeOptions& options, Encoding& out) const;

  std::unique_ptr<AddedTokens> added_;
  std::unique_ptr<Normalizer> normalizer_;
  std::unique_ptr<PreTokenizer> pre_tokenizer_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<PostProcessor> post_processor_;
  // Each thread's last pieces and their ids (recent_pieces.h), in front of
  // the model: pieces are tokenized by their text alone.
  std::unique_ptr<RecentPieces> recent_;
  int64_t model_max_length_ = 0;
  std::string description_;
};

}  // namespace phasor::tokenizers

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
#include <vector>

namespace phasor::tokenizers {

class Normalizer;
class PreTokenizer;
class Model;
class AddedTokens;
class PostProcessor;

struct Encoding {
  std::vector<int32_t> ids;
  std::vector<int32_t> types;  // [ids.size()] each id's token type
  // For a pair: the index of the first id of the second text's part (its
  // first token of type 1 where the template gives types, as BERT's does);
  // -1 for a single text.
  int64_t pair_start = -1;
};

struct TokenizeOptions {
  bool add_special_tokens = true;
  // 0: none. Otherwise no encoding is longer (special tokens included): a
  // longer one is cut as Hugging Face's truncation="longest_first" cuts it.
  int64_t max_length = 0;
};

class Tokenizer {
 public:
  // Reads the tokenizer of a model folder: tokenizer.json (with
  // tokenizer_config.json when present); without it vocab.txt (WordPiece, as
  // BertTokenizer), vocab.json + merges.txt (byte-level BPE, as
  // RobertaTokenizer), sentencepiece.bpe.model (fairseq's layout, as
  // XLMRobertaTokenizer) or source.spm + vocab.json (MarianTokenizer). Throws
  // Error naming the file and field of anything it cannot read, or the folder
  // if it holds no tokenizer.
  static std::shared_ptr<const Tokenizer> Load(const std::string& dir);
  // Whether dir holds any of the files Load reads.
  static bool Exists(const std::string& dir);

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
  // What was read, for messages: "tokenizer.json (WordPiece)".
  const std::string& description() const { return description_; }

  Tokenizer();
  ~Tokenizer();
  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;

 private:
  friend struct TokenizerBuilder;  // tokenizer_files.cc
  // Appends the ids of one text, without special tokens.
  void EncodeText(std::string_view text, std::vector<int32_t>& ids) const;

  std::unique_ptr<AddedTokens> added_;
  std::unique_ptr<Normalizer> normalizer_;
  std::unique_ptr<PreTokenizer> pre_tokenizer_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<PostProcessor> post_processor_;
  int64_t model_max_length_ = 0;
  std::string description_;
};

}  // namespace phasor::tokenizers

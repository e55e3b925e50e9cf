// Added tokens (tokenizer.json "added_tokens"): strings matched in the text
// before the model sees it, each giving its own id, as the Hugging Face
// tokenizers library's AddedVocabulary matches them. A token with normalized
// false (every special token of the usual files) is matched in the raw text; one
// with normalized true is matched in the normalized text between those. At a
// position the longest token wins, the leftmost match first; single_word,
// lstrip and rstrip apply as the library applies them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace phasor::tokenizers {

struct AddedToken {
  std::string content;
  int32_t id = 0;
  bool special = false;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = false;
};

// One part of a text: an added token's id, or a span of text for the model.
struct TextSplit {
  size_t begin = 0, end = 0;  // bytes of the text searched
  int32_t id = -1;            // the added token's id, or -1 for text
};

class AddedTokens {
 public:
  // tokens: as the file lists them; contents of normalized tokens must already
  // be normalized (the caller runs the normalizer on them).
  explicit AddedTokens(std::vector<AddedToken> tokens);

  // Splits text into added tokens and the text between them, in order; raw
  // selects the tokens matched before normalization (normalized false) or
  // after it (normalized true). Text parts are never empty.
  void Split(std::string_view text, bool raw, std::vector<TextSplit>& out) const;

  bool empty(bool raw) const { return (raw ? raw_ : normalized_).nodes.size() <= 1; }
  const std::vector<AddedToken>& tokens() const { return tokens_; }

 private:
  // A byte trie of the token contents.
  struct Trie {
    struct Node {
      std::vector<std::pair<unsigned char, int32_t>> next;  // sorted by byte
      int32_t token = -1;                                   // index in tokens_
    };
    std::vector<Node> nodes{Node{}};
    bool first_byte[256] = {};
  };
  void Insert(Trie& trie, int32_t token);
  // The longest token of trie that begins at text[i], or -1; its length in len.
  int32_t LongestAt(const Trie& trie, std::string_view text, size_t i, size_t& len) const;

  std::vector<AddedToken> tokens_;
  Trie raw_, normalized_;
};

}  // namespace phasor::tokenizers

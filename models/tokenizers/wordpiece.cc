// WordPiece (BERT): greedy longest-match-first over a piece's characters, as
// tokenizers/src/models/wordpiece/mod.rs. Each match after the first is
// looked up with continuing_subword_prefix ("##") in front; a piece longer
// than max_input_chars_per_word code points, or one with a position where no
// vocabulary entry starts, is the single unknown token.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/error.h"
#include "models/tokenizers/model.h"
#include "models/tokenizers/model_vocab.h"
#include "models/tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

// A byte trie of vocabulary entries, flattened: the longest entry that is a
// prefix of a text in one walk, where the greedy search of the library asks
// the table for every shorter candidate in turn (the same answer: the longest
// candidate found in the vocabulary).
class PrefixTrie {
 public:
  void Insert(std::string_view key, int32_t id) {
    if (nodes_.empty()) nodes_.emplace_back();
    uint32_t node = 0;
    for (const char ch : key) {
      const auto b = static_cast<unsigned char>(ch);
      uint32_t next = 0;
      for (const auto& [byte, child] : build_[node])
        if (byte == b) next = child;
      if (next == 0) {
        next = static_cast<uint32_t>(nodes_.size());
        nodes_.emplace_back();
        build_[node].emplace_back(b, next);
      }
      node = next;
    }
    if (nodes_[node].id < 0) nodes_[node].id = id;
  }

  // Lays the children of every node out in one sorted array.
  void Finish() {
    if (nodes_.empty()) nodes_.emplace_back();
    edges_.clear();
    for (uint32_t n = 0; n < nodes_.size(); ++n) {
      auto& children = build_[n];
      std::sort(children.begin(), children.end());
      nodes_[n].begin = static_cast<uint32_t>(edges_.size());
      edges_.insert(edges_.end(), children.begin(), children.end());
      nodes_[n].end = static_cast<uint32_t>(edges_.size());
    }
    build_.clear();
  }

  // The id of the longest entry that text begins with (its bytes in len), or -1.
  int32_t Longest(std::string_view text, size_t& len) const {
    int32_t best = -1;
    uint32_t node = 0;
    for (size_t k = 0; k < text.size(); ++k) {
      const auto b = static_cast<unsigned char>(text[k]);
      const Node& n = nodes_[node];
      uint32_t lo = n.begin, hi = n.end;
      while (lo < hi) {  // the first edge whose byte is >= b
        const uint32_t mid = (lo + hi) / 2;
        if (edges_[mid].first < b) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      if (lo == n.end || edges_[lo].first != b) break;
      node = edges_[lo].second;
      if (nodes_[node].id >= 0) {
        best = nodes_[node].id;
        len = k + 1;
      }
    }
    return best;
  }

 private:
  struct Node {
    int32_t id = -1;
    uint32_t begin = 0, end = 0;  // its children in edges_
  };
  std::vector<Node> nodes_;
  std::vector<std::pair<unsigned char, uint32_t>> edges_;
  // While building: each node's children.
  std::unordered_map<uint32_t, std::vector<std::pair<unsigned char, uint32_t>>> build_;
};

class WordPiece final : public Model {
 public:
  WordPiece(TokenTable vocab, const std::vector<std::pair<std::string, int32_t>>& entries,
            int32_t unk_id, std::string prefix, size_t max_chars)
      : vocab_(std::move(vocab)),
        unk_id_(unk_id),
        prefix_(std::move(prefix)),
        max_chars_(max_chars) {
    // A word's first piece is any entry; the pieces after it are the entries
    // that begin with the prefix, found without it.
    for (const auto& [token, id] : entries) {
      first_.Insert(token, id);
      if (token.size() > prefix_.size() && token.compare(0, prefix_.size(), prefix_) == 0)
        rest_.Insert(std::string_view(token).substr(prefix_.size()), id);
    }
    first_.Finish();
    rest_.Finish();
  }

  void Tokenize(std::string_view piece, std::vector<int32_t>& ids) const override {
    if (CountCodePoints(piece) > max_chars_) {
      ids.push_back(unk_id_);
      return;
    }
    const size_t first_id = ids.size();
    size_t start = 0;
    while (start < piece.size()) {
      size_t len = 0;
      const int32_t id = (start == 0 ? first_ : rest_).Longest(piece.substr(start), len);
      if (id < 0) {
        ids.resize(first_id);
        ids.push_back(unk_id_);
        return;
      }
      ids.push_back(id);
      start += len;
    }
  }

  std::optional<int32_t> TokenToId(std::string_view token) const override {
    return vocab_.Find(token);
  }
  int32_t VocabSize() const override { return vocab_.IdBound(); }

 private:
  TokenTable vocab_;
  int32_t unk_id_;
  std::string prefix_;
  size_t max_chars_;
  PrefixTrie first_, rest_;
};

}  // namespace

std::unique_ptr<Model> MakeWordPiece(const nlohmann::json& spec, const std::string& where) {
  if (!spec.contains("vocab")) throw Error(where + ".vocab: missing");
  TokenTable vocab = ReadTokenIds(spec["vocab"], where + ".vocab");
  const std::string unk = StringField(spec, "unk_token", where, "[UNK]");
  const auto unk_id = vocab.Find(unk);
  // The library looks the unknown token up only when a word needs it; phasor
  // asks at load, so a broken file fails before any text is read.
  if (!unk_id) {
    throw Error(where + ".unk_token: " + Quoted(unk) + " is not in the vocabulary");
  }
  const std::string prefix = StringField(spec, "continuing_subword_prefix", where, "##");
  size_t max_chars = 100;
  if (const auto it = spec.find("max_input_chars_per_word"); it != spec.end() && !it->is_null()) {
    if (!it->is_number_integer() || (!it->is_number_unsigned() && it->get<int64_t>() < 0)) {
      throw Error(where + ".max_input_chars_per_word: expected an integer >= 0, got " + it->dump());
    }
    max_chars = it->get<uint64_t>();
  }
  std::vector<std::pair<std::string, int32_t>> entries;
  entries.reserve(vocab.size());
  for (const auto& [token, id] : spec["vocab"].items())
    entries.emplace_back(token, id.get<int32_t>());
  return std::make_unique<WordPiece>(std::move(vocab), entries, *unk_id, prefix, max_chars);
}

}  // namespace phasor::tokenizers

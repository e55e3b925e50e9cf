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
#include "tokenizers/model.h"
#include "tokenizers/model_spec.h"
#include "tokenizers/model_vocab.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

// A byte trie of vocabulary entries, flattened: the longest entry that is a
// prefix of a text in one walk, where the greedy search of the library asks
// the table for every shorter candidate in turn (the same answer: the longest
// candidate found in the vocabulary).
class PrefixTrie {
 public:
  using Entries = std::vector<std::pair<std::string_view, int32_t>>;

  // Builds the trie of entries (distinct keys), each node's children laid
  // out together in one sorted run of edges_.
  void Build(Entries entries) {
    std::sort(entries.begin(), entries.end());
    nodes_.assign(1, Node{});
    edges_.clear();
    edges_.reserve(entries.size() * 4);
    AddChildren(0, entries, 0, entries.size(), 0);
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
  // keys[lo, hi) share their first depth bytes, which lead to node: the
  // key of exactly those bytes (first, as sorted) ends there; the others are
  // grouped by their next byte into children.
  void AddChildren(uint32_t node, const Entries& keys, size_t lo, size_t hi, size_t depth) {
    if (lo < hi && keys[lo].first.size() == depth) {
      nodes_[node].id = keys[lo].second;
      ++lo;
    }
    const auto first_edge = static_cast<uint32_t>(edges_.size());
    std::vector<size_t> group_begin;
    for (size_t i = lo; i < hi; ++i) {
      const auto b = static_cast<unsigned char>(keys[i].first[depth]);
      if (i == lo || b != static_cast<unsigned char>(keys[i - 1].first[depth])) {
        group_begin.push_back(i);
        edges_.emplace_back(b, static_cast<uint32_t>(nodes_.size()));
        nodes_.emplace_back();
      }
    }
    nodes_[node].begin = first_edge;
    nodes_[node].end = static_cast<uint32_t>(edges_.size());
    group_begin.push_back(hi);
    for (size_t g = 0; g + 1 < group_begin.size(); ++g) {
      AddChildren(edges_[first_edge + g].second, keys, group_begin[g], group_begin[g + 1],
                  depth + 1);
    }
  }

  std::vector<Node> nodes_;
  std::vector<std::pair<unsigned char, uint32_t>> edges_;
};

class WordPiece final : public Model {
 public:
  WordPiece(TokenTable vocab, int32_t unk_id, std::string prefix, size_t max_chars)
      : vocab_(std::move(vocab)),
        unk_id_(unk_id),
        prefix_(std::move(prefix)),
        max_chars_(max_chars) {
    // Views of vocab_'s tokens (taken after the move: a short string's bytes move).
    PrefixTrie::Entries entries;
    entries.reserve(vocab_.size());
    vocab_.ForEach([&](std::string_view token, int32_t id) { entries.emplace_back(token, id); });
    // A word's first piece is any entry; the pieces after it are the entries
    // that begin with the prefix, found without it.
    PrefixTrie::Entries rest;
    for (const auto& [token, id] : entries) {
      if (token.size() > prefix_.size() && token.substr(0, prefix_.size()) == prefix_)
        rest.emplace_back(token.substr(prefix_.size()), id);
    }
    first_.Build(entries);
    rest_.Build(std::move(rest));
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

  void TokenizeWithOffsets(std::string_view piece, std::vector<int32_t>& ids,
                           std::vector<Span>& spans) const override {
    const size_t first_id = ids.size();
    Tokenize(piece, ids);
    if (ids.size() == first_id + 1 && ids.back() == unk_id_) {  // the whole word
      spans.emplace_back(0, piece.size());
      return;
    }
    size_t at = 0;
    for (size_t k = first_id; k < ids.size(); ++k) {
      // Each piece after the first is found without its prefix.
      size_t len = vocab_.TokenOf(ids[k]).size();
      if (k > first_id) len -= prefix_.size();
      spans.emplace_back(at, at + len);
      at += len;
    }
  }
  std::string_view IdToToken(int32_t id) const override { return vocab_.TokenOf(id); }

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

std::unique_ptr<Model> BuildWordPiece(const ModelSpec& model, const std::string& where) {
  if (!model.vocab) throw Error(where + ".vocab: missing");
  const nlohmann::json& spec = model.fields;
  TokenTable vocab = ReadTokenIds(*model.vocab, where + ".vocab");
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
  return std::make_unique<WordPiece>(std::move(vocab), *unk_id, prefix, max_chars);
}

}  // namespace phasor::tokenizers

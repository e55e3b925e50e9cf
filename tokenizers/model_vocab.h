// The pieces the model kinds share: a token table looked up by string_view
// without allocating, read from a tokenizer.json {token: id} object with the
// checks every builder makes (the typed field readers are fields.h's).
// Internal to phasor_tokenizers.
#pragma once

#include <cstdint>
#include <deque>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizers/fields.h"  // the field readers the model kinds use

namespace phasor::tokenizers {

// token -> id. Keys live in storage_ (a deque: its strings never move), so the
// map can key on views of them and a lookup never builds a std::string.
class TokenTable {
 public:
  TokenTable() = default;
  TokenTable(const TokenTable&) = delete;
  TokenTable& operator=(const TokenTable&) = delete;
  TokenTable(TokenTable&&) = default;
  TokenTable& operator=(TokenTable&&) = default;

  // Room for n tokens, so that filling the table does not rehash.
  void Reserve(size_t n) {
    map_.reserve(n);
    by_id_.reserve(n);
  }
  // Adds token with id; false (and no change) if token is already there.
  bool Insert(std::string_view token, int32_t id);
  std::optional<int32_t> Find(std::string_view token) const {
    const auto it = map_.find(token);
    if (it == map_.end()) return std::nullopt;
    return it->second;
  }
  size_t size() const { return map_.size(); }
  // The token of id, or empty.
  std::string_view TokenOf(int32_t id) const {
    return id >= 0 && static_cast<size_t>(id) < by_id_.size() ? by_id_[static_cast<size_t>(id)]
                                                              : std::string_view();
  }
  // One past the largest id (0 when empty).
  int32_t IdBound() const { return id_bound_; }

 private:
  std::deque<std::string> storage_;
  std::unordered_map<std::string_view, int32_t> map_;
  std::vector<std::string_view> by_id_;  // views of storage_'s strings
  int32_t id_bound_ = 0;
};

// Reads a {token: id, ...} object (tokenizer.json's WordPiece and BPE "vocab",
// Marian's vocab.json). where names the object ("tokenizer.json: model.vocab").
// Throws Error naming where and the token for: not an object, an empty
// object, an id that is not an integer in [0, 2^31), an id two tokens share.
TokenTable ReadTokenIds(const nlohmann::json& vocab, const std::string& where);

// The "<0xAB>" piece of a byte, as byte fallback spells it.
std::string BytePiece(unsigned char b);

// A quoted token for messages: "ab" (JSON escapes, so control bytes show).
std::string Quoted(std::string_view token);

}  // namespace phasor::tokenizers

// The pieces the model kinds share: a token table looked up by string_view
// without allocating, read in place from a tokenizer.json {token: id} object
// (simdjson's DOM) with the checks every builder makes (the typed field readers are fields.h's).
// Internal to phasor_tokenizers.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizers/fields.h"  // the field readers the model kinds use

namespace phasor::tokenizers {

// token -> id. The tokens' bytes lie one after another in one string, found
// by open addressing over (hash, size, offset, id) slots: filling the table
// allocates nothing per token, and a lookup never builds a std::string.
class TokenTable {
 public:
  TokenTable() = default;
  TokenTable(const TokenTable&) = delete;
  TokenTable& operator=(const TokenTable&) = delete;
  TokenTable(TokenTable&&) = default;
  TokenTable& operator=(TokenTable&&) = default;

  // Room for n tokens of bytes bytes in all, so that filling the table does
  // not rehash.
  void Reserve(size_t n, size_t bytes = 0);
  // Adds token with id (>= 0); false (and no change) if token is already there.
  bool Insert(std::string_view token, int32_t id);
  std::optional<int32_t> Find(std::string_view token) const { return Find(token, {}); }
  // The id of the token a followed by b, without building it.
  std::optional<int32_t> Find(std::string_view a, std::string_view b) const {
    if (slots_.empty()) return std::nullopt;
    const Slot& slot = slots_[Probe(a, b, Hash(b, Hash(a)))];
    if (slot.id < 0) return std::nullopt;
    return slot.id;
  }
  size_t size() const { return size_; }
  // The token of id, or empty.
  std::string_view TokenOf(int32_t id) const {
    if (!HasId(id)) return std::string_view();
    const Place& p = by_id_[static_cast<size_t>(id)];
    return std::string_view(text_.data() + p.offset, p.size);
  }
  // Whether a token has id.
  bool HasId(int32_t id) const {
    return id >= 0 && static_cast<size_t>(id) < by_id_.size() &&
           by_id_[static_cast<size_t>(id)].offset != kNone;
  }
  // One past the largest id (0 when empty).
  int32_t IdBound() const { return id_bound_; }
  // Calls f(token, id) for every entry, in no set order.
  template <class F>
  void ForEach(F&& f) const {
    for (const Slot& slot : slots_) {
      if (slot.id >= 0) f(std::string_view(text_.data() + slot.offset, slot.size), slot.id);
    }
  }

 private:
  static constexpr uint32_t kNone = ~uint32_t{0};
  struct Slot {
    uint32_t hash;  // the low bits of the token's hash
    uint32_t size;
    uint32_t offset;  // in text_
    int32_t id;       // -1: empty
  };
  struct Place {
    uint32_t offset = kNone;
    uint32_t size = 0;
  };
  // FNV-1a, byte by byte, so that the hash of a concatenation continues the
  // hash of its first part; Probe mixes it before taking a slot from it.
  static uint64_t Hash(std::string_view token, uint64_t hash = 0xcbf29ce484222325ull) {
    for (const char c : token) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    return hash;
  }
  // The slot of a followed by b, or the empty slot where it would go.
  size_t Probe(std::string_view a, std::string_view b, uint64_t hash) const;
  void Rehash(size_t capacity);

  std::string text_;          // every token's bytes
  std::vector<Slot> slots_;   // a power of two of them, at most half used
  std::vector<Place> by_id_;  // id -> its token in text_
  size_t size_ = 0;
  int32_t id_bound_ = 0;
};

// Reads a {token: id, ...} object (tokenizer.json's WordPiece and BPE "vocab",
// Marian's vocab.json) in place. where names the object ("tokenizer.json:
// model.vocab"). Throws Error naming where and the token for: not an object,
// an empty object, an id that is not an integer in [0, 2^31), an id two
// tokens share, a token listed twice.
TokenTable ReadTokenIds(simdjson::dom::element vocab, const std::string& where);

// The "<0xAB>" piece of a byte, as byte fallback spells it.
std::string BytePiece(unsigned char b);

// A quoted token for messages: "ab" (JSON escapes, so control bytes show).
std::string Quoted(std::string_view token);

}  // namespace phasor::tokenizers

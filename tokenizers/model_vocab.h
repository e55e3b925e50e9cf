// The pieces the model kinds share: a token table looked up by string_view
// without allocating, read in place from a tokenizer.json {token: id} object
// (simdjson's DOM) with the checks every builder makes (the typed field readers are fields.h's).
// Internal to phasor_tokenizers.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/aligned_allocator.h"
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
  std::optional<int32_t> Find(std::string_view token) const {
    if (slots_.empty()) return std::nullopt;
    const Slot& slot = slots_[Probe(token, Hash(token))];
    if (slot.id < 0) return std::nullopt;
    return slot.id;
  }
  // The id of the token a followed by b (without allocating, when short).
  std::optional<int32_t> Find(std::string_view a, std::string_view b) const;
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

  // The table's hash of a token (also the tokenizer's recent pieces'):
  // eight bytes at a time, each step a multiply and a shift; the last one to
  // eight bytes read as two overlapping loads (no byte loop, no read past the
  // token); then a final mix, so the low bits pick a slot.
  static uint64_t Hash(std::string_view token) {
    const char* p = token.data();
    const size_t n = token.size();
    uint64_t hash = 0x9E3779B97F4A7C15ull ^ n;
    size_t i = 0;
    for (; i + 8 < n; i += 8) {
      hash = (hash ^ Load(p + i, 8)) * 0xbf58476d1ce4e5b9ull;
      hash ^= hash >> 31;
    }
    const size_t rest = n - i;  // 0 to 8
    uint64_t word = 0;
    if (rest >= 4) {
      word = (Load(p + i, 4) << 32) | Load(p + n - 4, 4);
    } else if (rest > 0) {
      word = (uint64_t(static_cast<unsigned char>(p[i])) << 16) |
             (uint64_t(static_cast<unsigned char>(p[i + rest / 2])) << 8) |
             static_cast<unsigned char>(p[n - 1]);
    }
    hash = (hash ^ word) * 0x94d049bb133111ebull;
    hash ^= hash >> 32;
    hash *= 0xd6e8feb86659fd93ull;
    return hash ^ (hash >> 32);
  }

 private:
  static constexpr uint32_t kNone = ~uint32_t{0};
  struct Slot {
    uint32_t hash;  // the high half of the token's hash (the low bits pick the slot)
    uint32_t size;
    uint32_t offset;  // in text_
    int32_t id;       // -1: empty
  };
  struct Place {
    uint32_t offset = kNone;
    uint32_t size = 0;
  };
  // Whether the n bytes at x and y are the same: whole words (the last one
  // overlapping the one before), never a byte past either.
  static bool SameBytes(const char* x, const char* y, size_t n) {
    if (n >= 8) {
      for (size_t i = 0; i + 8 < n; i += 8) {
        if (Load(x + i, 8) != Load(y + i, 8)) return false;
      }
      return Load(x + n - 8, 8) == Load(y + n - 8, 8);
    }
    if (n >= 4) return Load(x, 4) == Load(y, 4) && Load(x + n - 4, 4) == Load(y + n - 4, 4);
    for (size_t i = 0; i < n; ++i) {
      if (x[i] != y[i]) return false;
    }
    return true;
  }
  // size (4 or 8) bytes at p as an integer.
  static uint64_t Load(const char* p, size_t size) {
    if (size == 8) {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  // The slot of token, or the empty slot where it would go.
  size_t Probe(std::string_view token, uint64_t hash) const;
  void Rehash(size_t capacity);

  std::string text_;  // every token's bytes
  // In huge pages where the kernel gives them: megabytes probed at random.
  std::vector<Slot, AlignedAllocator<Slot>> slots_;  // a power of two of them, at most half used
  std::vector<Place> by_id_;                         // id -> its token in text_
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

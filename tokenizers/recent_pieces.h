// The ids of the pieces a thread tokenized last, in front of the model (and
// its own cache, if it has one): a direct-mapped table of kSlots 64-byte slots (256 KiB a thread,
// made on its first piece and kept), small enough to stay in the core's cache, so that the common
// words of a text cost one hash and one compare, with no lock and no lookup in the vocabulary's
// megabytes. A piece of more than kMaxBytes bytes or kMaxIds ids is not kept. Every slot carries
// the id of the table user (a tokenizer) that filled it: tokenizers used in turn on one thread
// never read each other's.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "tokenizers/model_vocab.h"

namespace phasor::tokenizers {

class RecentPieces {
 public:
  static constexpr size_t kMaxBytes = 26;
  static constexpr size_t kMaxIds = 6;
  static constexpr size_t kSlots = 4096;

  RecentPieces() : owner_(NextOwner()) {}

  static uint64_t Hash(std::string_view piece) { return TokenTable::Hash(piece); }

  // Appends piece's kept ids and returns true, or returns false. hash: any
  // hash of piece, the same on every call.
  bool Get(std::string_view piece, uint64_t hash, std::vector<int32_t>& ids) const {
    if (piece.size() > kMaxBytes) return false;
    const Slot& s = Table()[hash & (kSlots - 1)];
    if (s.owner != owner_ || s.hash != hash || s.len != piece.size() ||
        std::memcmp(s.bytes, piece.data(), piece.size()) != 0)
      return false;
    ids.insert(ids.end(), s.ids, s.ids + s.n_ids);
    return true;
  }

  // Keeps ids[0, n) as piece's, in place of the slot's last piece.
  void Put(std::string_view piece, uint64_t hash, const int32_t* ids, size_t n) const {
    if (piece.size() > kMaxBytes || n > kMaxIds) return;
    Slot& s = Table()[hash & (kSlots - 1)];
    s.owner = owner_;
    s.hash = hash;
    s.len = static_cast<uint8_t>(piece.size());
    s.n_ids = static_cast<uint8_t>(n);
    std::memcpy(s.bytes, piece.data(), piece.size());
    if (n > 0) std::memcpy(s.ids, ids, n * sizeof(int32_t));  // ids may be null for none
  }

 private:
  struct alignas(64) Slot {
    uint64_t hash;
    uint32_t owner;  // 0: empty
    uint8_t len;
    uint8_t n_ids;
    char bytes[kMaxBytes];
    int32_t ids[kMaxIds];
  };
  static_assert(sizeof(Slot) == 64);

  static Slot* Table() {
    thread_local std::unique_ptr<Slot[]> table(new Slot[kSlots]());
    return table.get();
  }
  static uint32_t NextOwner() {
    static std::atomic<uint32_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
  }

  uint32_t owner_;  // distinct for every table user the process makes
};

}  // namespace phasor::tokenizers

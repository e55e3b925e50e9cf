// A model's cache of the pieces it has tokenized: their ids, shared by all
// threads (BPE's and Unigram's, as the Rust crate's models keep one).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace phasor::tokenizers {

// Pieces already tokenized -> their ids, shared by all threads: shards each
// under its own mutex, so threads rarely wait on one another. Bounded: a full
// shard is emptied before it takes the next piece (the cache follows the
// text instead of keeping the first words it saw forever).
class PieceCache {
 public:
  static constexpr size_t kMaxPieceBytes = 256;  // as the library's MAX_LENGTH

  explicit PieceCache(size_t capacity) : per_shard_(std::max<size_t>(1, capacity / kShards)) {}

  // Appends the cached ids of piece, if any.
  bool Get(std::string_view piece, size_t hash, std::vector<int32_t>& ids) const {
    Shard& shard = shards_[hash % kShards];
    std::lock_guard<std::mutex> lock(shard.mu);
    const auto it = shard.entries.find(hash);
    if (it == shard.entries.end() || it->second.piece != piece) return false;
    ids.insert(ids.end(), it->second.ids.begin(), it->second.ids.end());
    return true;
  }
  void Put(std::string_view piece, size_t hash, const int32_t* ids, size_t n) const {
    Shard& shard = shards_[hash % kShards];
    std::lock_guard<std::mutex> lock(shard.mu);
    if (shard.entries.size() >= per_shard_) shard.entries.clear();
    Entry& entry = shard.entries[hash];  // a colliding piece is replaced
    entry.piece.assign(piece);
    entry.ids.assign(ids, ids + n);
  }

 private:
  static constexpr size_t kShards = 64;
  struct Entry {
    std::string piece;
    std::vector<int32_t> ids;
  };
  struct Shard {
    std::mutex mu;
    std::unordered_map<size_t, Entry> entries;
  };
  mutable std::array<Shard, kShards> shards_;
  size_t per_shard_;
};

}  // namespace phasor::tokenizers

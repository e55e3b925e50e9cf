// BPE's queue of merges on a long word: a min-heap of 64-bit keys with four
// children a node (half the levels of a binary heap, each node's children
// in one cache line), kept in a buffer reused call after call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace phasor::tokenizers {

class MergeQueue {
 public:
  // Starts over with keys, in any order (the buffer is taken and kept).
  void Assign(std::vector<uint64_t>&& keys) {
    heap_.swap(keys);
    for (size_t i = heap_.size() / 4 + 1; i-- > 0;) {
      if (i < heap_.size()) SiftDown(i, heap_[i]);
    }
  }
  bool empty() const { return heap_.empty(); }
  void Push(uint64_t key) {
    heap_.push_back(key);
    size_t i = heap_.size() - 1;
    while (i > 0) {
      const size_t parent = (i - 1) / 4;
      if (heap_[parent] <= key) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = key;
  }
  // The smallest key, removed.
  uint64_t Pop() {
    const uint64_t top = heap_[0];
    const uint64_t last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) SiftDown(0, last);
    return top;
  }
  // The buffer back (empty), for the next Assign.
  std::vector<uint64_t>& Buffer() {
    heap_.clear();
    return heap_;
  }

 private:
  // Puts key at i or below, moving smaller children up.
  void SiftDown(size_t i, uint64_t key) {
    const size_t n = heap_.size();
    for (;;) {
      const size_t first = 4 * i + 1;
      if (first >= n) break;
      size_t best = first;
      const size_t end = first + 4 < n ? first + 4 : n;
      for (size_t c = first + 1; c < end; ++c)
        if (heap_[c] < heap_[best]) best = c;
      if (heap_[best] >= key) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = key;
  }

  std::vector<uint64_t> heap_;
};

}  // namespace phasor::tokenizers

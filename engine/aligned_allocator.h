// The allocator of phasor's buffers: 64-byte aligned (a cache line, an AVX-512
// register), and, from kHugeBytes up, aligned to 2 MiB and offered to the
// kernel as transparent huge pages (madvise MADV_HUGEPAGE) before anything
// touches them. Large tables (token embeddings, PE tables, activations) then
// need a TLB entry per 2 MiB rather than per 4 KiB, which matters most to the
// embedding's random row gather. Where huge pages are unavailable or refused,
// the buffer is the same, in ordinary pages.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace phasor {

// Buffers of at least this many bytes are huge-page candidates.
constexpr size_t kHugeBytes = size_t{2} << 20;

// bytes (> 0) aligned as above; throws std::bad_alloc. Free with FreeAligned.
void* AllocateAligned(size_t bytes);
void FreeAligned(void* p) noexcept;

template <class T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(AllocateAligned(n == 0 ? 1 : n * sizeof(T)));
  }
  void deallocate(T* p, size_t) noexcept { FreeAligned(p); }

  template <class U>
  bool operator==(const AlignedAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const AlignedAllocator<U>&) const noexcept {
    return false;
  }
};

// A float buffer aligned to 64 bytes (a cache line, an AVX-512 register), in
// huge pages where large. Rows of row-major buffers whose width is a multiple
// of 16 stay aligned, so Eigen vectorises them without scalar peeling, and
// results do not depend on where a buffer happens to sit in memory.
using AlignedFloats = std::vector<float, AlignedAllocator<float>>;
using AlignedDoubles = std::vector<double, AlignedAllocator<double>>;

}  // namespace phasor

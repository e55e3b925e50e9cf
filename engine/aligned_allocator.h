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
#include <utility>
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

// The same allocation, but resize() leaves new values uninitialised: for a
// buffer written whole right after (a cached table), whose bytes are then
// written once rather than zeroed first.
template <class T>
struct UninitAlignedAllocator : AlignedAllocator<T> {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = UninitAlignedAllocator<U>;
  };
  UninitAlignedAllocator() = default;
  template <class U>
  UninitAlignedAllocator(const UninitAlignedAllocator<U>&) noexcept {}

  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialised: no value written
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using UninitAlignedFloats = std::vector<float, UninitAlignedAllocator<float>>;

}  // namespace phasor

#include "engine/aligned_allocator.h"

#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace phasor {
namespace {

constexpr size_t kLine = 64;

size_t RoundUp(size_t bytes, size_t to) { return (bytes + to - 1) / to * to; }

}  // namespace

void* AllocateAligned(size_t bytes) {
  const size_t align = bytes >= kHugeBytes ? kHugeBytes : kLine;
  if (bytes > static_cast<size_t>(-1) - align) throw std::bad_alloc();
  const size_t size = RoundUp(bytes, align);  // aligned_alloc wants a multiple
  void* p = std::aligned_alloc(align, size);
  if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Advice only: an error (no THP in this kernel, or a sanitizer's allocator
  // with its own mapping) leaves ordinary pages. Only the huge pages the
  // buffer fills are advised: its tail past the last one stays in ordinary
  // pages, so that a buffer of 2.3 MiB holds 2.3 MiB, not 4.
  const size_t whole = bytes / kHugeBytes * kHugeBytes;
  if (align == kHugeBytes) madvise(p, whole, MADV_HUGEPAGE);
#endif
  return p;
}

void FreeAligned(void* p) noexcept { std::free(p); }

}  // namespace phasor

// The buffer allocator: alignment for vector code, huge-page alignment for
// large buffers, and refusal of impossible sizes.
#include "engine/aligned_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <new>

#include "engine/tensor.h"

namespace phasor {
namespace {

uintptr_t Address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(AlignedAllocatorTest, SmallBuffersSitOnCacheLinesLargeOnes2MiB) {
  for (size_t n : {size_t{1}, size_t{3}, size_t{17}, size_t{1000}}) {
    AlignedFloats v(n, 1.5f);
    EXPECT_EQ(Address(v.data()) % 64, 0u) << n;
    EXPECT_EQ(v.back(), 1.5f);
  }
  // From kHugeBytes up: 2 MiB aligned, every byte usable.
  for (size_t bytes : {kHugeBytes, kHugeBytes + 4, 3 * kHugeBytes + 12}) {
    AlignedFloats v(bytes / sizeof(float), 2.0f);
    EXPECT_EQ(Address(v.data()) % kHugeBytes, 0u) << bytes;
    EXPECT_EQ(v.front() + v.back(), 4.0f);
  }
  AlignedDoubles d(kHugeBytes / sizeof(double) - 1, 0.25);  // just under: cache-line aligned
  EXPECT_EQ(Address(d.data()) % 64, 0u);
}

TEST(AlignedAllocatorTest, ImpossibleSizesThrow) {
  AlignedAllocator<float> a;
  EXPECT_THROW(a.allocate(static_cast<size_t>(-1) / 2), std::bad_alloc);
  EXPECT_THROW(a.allocate(static_cast<size_t>(-1)), std::bad_alloc);  // bad_array_new_length
}

}  // namespace
}  // namespace phasor

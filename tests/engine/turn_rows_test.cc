// The row kernels of engine/kernels/rotate_rows.h on the chosen target:
// TurnRows against its naive twin and a closed form, and every row kernel's
// streaming stores against its ordinary ones (isa_row_kernels_test.cc compares
// targets).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "engine/aligned_allocator.h"
#include "engine/kernels/rotate_rows.h"
#include "tests/support/naive_turn_rows.h"

namespace phasor {
namespace {

using kernels::Gather;
using kernels::PairSlots;
using kernels::Stores;

AlignedFloats Random(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  AlignedFloats v(static_cast<size_t>(n));
  for (auto& x : v) x = dist(rng);
  return v;
}

bool SameBits(const float* a, const float* b, int64_t n) {
  return std::memcmp(a, b, static_cast<size_t>(n) * sizeof(float)) == 0;
}

TEST(TurnRowsTest, MatchesItsNaiveTwin) {
  const std::vector<int32_t> ids = {3, 0, 7, 7, 1, 5, 2, 4, 6, 0, 1};
  for (int64_t n : {2, 8, 30, 32, 48, 64, 70, 512, 1030}) {
    const int64_t rows = 5;
    const AlignedFloats a = Random(n, 1), u = Random(rows * n, 2), table = Random(8 * n, 3);
    for (PairSlots slots : {PairSlots::kAdjacent, PairSlots::kHalves}) {
      for (float scale : {0.0f, 1.0f, 1.5f}) {
        const Gather g{table.data(), ids.data(), static_cast<int64_t>(ids.size()), scale};
        const Gather* gather = scale == 0.0f ? nullptr : &g;
        std::vector<float> fast(rows * n), naive(rows * n);
        kernels::TurnRows({a.data(), u.data(), rows, n, slots, gather, fast.data()});
        testing::NaiveTurnRows({a.data(), u.data(), rows, n, slots, gather, naive.data()});
        EXPECT_TRUE(SameBits(fast.data(), naive.data(), rows * n))
            << "n " << n << " halves " << (slots == PairSlots::kHalves) << " scale " << scale;
      }
    }
  }
}

// A known turn: θ = 0, so (sin θ, cos θ) = (0, 1), by φ with (cos φ, sin φ) =
// (0.6, 0.8): (sin, cos)(θ + φ) = (0.8, 0.6); and the same pair stored as
// (cos, sin) = (1, 0) with s = −sin φ: (cos, sin)(θ + φ) = (0.6, 0.8).
TEST(TurnRowsTest, TurnsAKnownPairForward) {
  for (PairSlots slots : {PairSlots::kAdjacent, PairSlots::kHalves}) {
    for (bool cos_first : {false, true}) {
      const float a[2] = {cos_first ? 1.0f : 0.0f, cos_first ? 0.0f : 1.0f};  // x | y
      const float u[2] = {0.6f, cos_first ? -0.8f : 0.8f};                    // c | s
      float out[2];
      kernels::TurnRows({a, u, 1, 2, slots, nullptr, out});
      EXPECT_FLOAT_EQ(out[0], cos_first ? 0.6f : 0.8f);
      EXPECT_FLOAT_EQ(out[1], cos_first ? 0.8f : 0.6f);
    }
  }
}

// Streaming stores give the same bits as ordinary ones, aligned or not.
TEST(TurnRowsTest, StreamingStoresGiveTheBitsOfCachedOnes) {
  const int64_t n = 1030;
  const AlignedFloats a = Random(n, 11), x = Random(n, 12), u = Random(3 * n, 13);
  const std::vector<int32_t> ids = {0, 0, 0};
  AlignedFloats cached(3 * n + 16), streamed(3 * n + 16);
  for (int64_t offset : {0, 1, 5, 16}) {
    for (int64_t len : {int64_t{0}, int64_t{2}, int64_t{18}, int64_t{64}, int64_t{96}, n}) {
      float* co = cached.data() + offset;
      float* so = streamed.data() + offset;
      const auto check = [&](const char* what, int64_t values) {
        kernels::StreamFence();
        ASSERT_TRUE(SameBits(co, so, values)) << what << " offset " << offset << " n " << len;
      };
      for (PairSlots slots : {PairSlots::kAdjacent, PairSlots::kHalves}) {
        if (len % 2 != 0) continue;
        const int64_t rows = len <= n / 3 ? 3 : 1;
        // Scaled and unscaled token rows take different loops.
        const Gather g{x.data(), ids.data(), 3, 2.0f}, g1{x.data(), ids.data(), 3, 1.0f};
        for (const Gather* gather : {static_cast<const Gather*>(nullptr), &g, &g1}) {
          kernels::TurnRows({a.data(), u.data(), rows, len, slots, gather, co, Stores::kCached});
          kernels::TurnRows({a.data(), u.data(), rows, len, slots, gather, so, Stores::kStreaming});
          check("TurnRows", rows * len);
        }
      }
      kernels::ScaleAddRow(x.data(), 2.0f, a.data(), len, co, {Stores::kCached, {}});
      kernels::ScaleAddRow(x.data(), 2.0f, a.data(), len, so, {Stores::kStreaming, {}});
      check("ScaleAddRow", len);
      kernels::ScaleRow(x.data(), 2.0f, len, co, {Stores::kCached, {}});
      kernels::ScaleRow(x.data(), 2.0f, len, so, {Stores::kStreaming, {}});
      check("ScaleRow", len);
      kernels::FillRow(0.5f, len, so, Stores::kStreaming);
      kernels::StreamFence();
      for (int64_t k = 0; k < len; ++k) ASSERT_EQ(so[k], 0.5f);
    }
  }
}

}  // namespace
}  // namespace phasor

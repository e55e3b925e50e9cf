// The walk of a panel product's rows in register tiles (tile_rows.inc) and the
// next panel's fetch that it shares out over them (kernel_table.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/kernels/kernel_table.h"

namespace phasor::kernels {
namespace {

// The row-tile walk (tile_rows.inc) that every panel kernel runs, with tiles
// that only record what they were given: tile i of kRows rows gets rows
// [i·kRows, min(rows, (i + 1)·kRows)) of every row-indexed field, the other
// fields as given, and FetchShare(next, k4, i, tiles) or its own panel's start.
namespace walk {
#include "engine/kernels/tile_rows.inc"

std::vector<std::pair<int, Int8PanelArgs>> calls;
template <int MR>
void Record(const Int8PanelArgs& t) {
  calls.emplace_back(MR, t);
}
constexpr void (*kRecord[9])(const Int8PanelArgs&) = {nullptr, PHASOR_TILES_8_OF(Record)};

}  // namespace walk

TEST(RowTileWalkTest, EachTileGetsItsRowsAndItsShareOfTheNextPanel) {
  std::vector<uint8_t> q(70 * 40);
  std::vector<float> row_scales(70), c(70 * 50);
  const std::vector<int8_t> panel(10 * 128), next_panel(10 * 128);
  const int32_t sums[32] = {};
  const float scales[32] = {}, bias[32] = {};
  for (const int64_t rows : {1, 7, 8, 9, 64, 70}) {
    for (const bool with_next : {false, true}) {
      const Int8PanelArgs p{
          q.data(),
          40,
          rows,
          row_scales.data(),
          panel.data(),
          10,
          sums,
          scales,
          bias,
          false,
          c.data(),
          50,
          17,
          with_next ? PanelFetch{reinterpret_cast<const char*>(next_panel.data())} : PanelFetch{}};
      walk::calls.clear();
      walk::ForRowTiles<8>(p, walk::kRecord);
      const int64_t n = (rows + 7) / 8;
      ASSERT_EQ(static_cast<int64_t>(walk::calls.size()), n) << rows;
      for (int64_t i = 0; i < n; ++i) {
        const auto& [mr, t] = walk::calls[static_cast<size_t>(i)];
        const int64_t r0 = 8 * i, m = std::min<int64_t>(8, rows - r0);
        EXPECT_EQ(mr, m) << rows << " tile " << i;
        EXPECT_EQ(t.rows, m) << rows << " tile " << i;
        EXPECT_EQ(t.q, q.data() + r0 * 40) << rows << " tile " << i;
        EXPECT_EQ(t.row_scales, row_scales.data() + r0) << rows << " tile " << i;
        EXPECT_EQ(t.c, c.data() + r0 * 50) << rows << " tile " << i;
        EXPECT_TRUE(t.ldq == 40 && t.ldc == 50 && t.k4 == 10 && t.n_valid == 17 &&
                    t.panel == panel.data() && t.sums == sums && t.scales == scales &&
                    t.bias == bias && !t.relu)
            << rows << " tile " << i;
        // Shares: 128 / n bytes a step, tile i's from i · (128 / n) · k4 bytes on.
        const char* expect_at =
            with_next ? reinterpret_cast<const char*>(next_panel.data()) + i * (128 / n) * 10
                      : reinterpret_cast<const char*>(panel.data());
        EXPECT_EQ(t.next.at, expect_at) << rows << " tile " << i;
        EXPECT_EQ(t.next.step, with_next ? 128 / n : 0) << rows << " tile " << i;
      }
    }
  }
}

// The next panel's fetch (kernel_table.h) as the row-tile walk shares it out,
// against the panel's own lines counted one by one: no prefetch lies outside
// the panel, and every line is touched when the tile count divides 128.
TEST(PanelFetchTest, SharesStayInsideTheNextPanelAndReachEveryLine) {
  const std::vector<char> buffer(512 * 128);  // addresses only: nothing is read
  const char* panel = buffer.data();
  const PanelFetch next{panel, 0};
  for (const int64_t steps : {1, 3, 64, 512}) {
    for (int64_t n = 1; n <= 16; ++n) {
      const int64_t bytes = steps * 128, lines = bytes / 64;
      std::vector<bool> touched(static_cast<size_t>(lines), false);
      for (int64_t i = 0; i < n; ++i) {
        const PanelFetch share = FetchShare(next, steps, i, n);
        for (int64_t kk = 0; kk < steps; ++kk) {
          const int64_t at = share.at + kk * share.step - panel;
          ASSERT_GE(at, 0) << "steps " << steps << " n " << n << " tile " << i;
          ASSERT_LT(at, bytes) << "steps " << steps << " n " << n << " tile " << i;
          touched[static_cast<size_t>(at / 64)] = true;
        }
      }
      const int64_t reached = std::count(touched.begin(), touched.end(), true);
      if (n == 1) {
        EXPECT_EQ(reached, lines / 2) << "steps " << steps;  // a line of each step's two
      } else if (128 % n == 0) {
        EXPECT_EQ(reached, lines) << "steps " << steps << " n " << n;
      } else {
        EXPECT_GE(reached, lines * 9 / 10) << "steps " << steps << " n " << n;
      }
    }
  }
}

TEST(PanelFetchTest, NextPanelIsTheOneAfterAndNothingAfterTheLast) {
  const std::vector<char> buffer(5 * 96);
  for (int64_t p = 0; p < 4; ++p) {
    EXPECT_EQ(NextPanel(buffer.data(), 96, p, 5).at, buffer.data() + (p + 1) * 96) << p;
  }
  EXPECT_EQ(NextPanel(buffer.data(), 96, 4, 5).at, nullptr);
  EXPECT_EQ(NextPanel(buffer.data(), 96, 0, 1).at, nullptr);
}

}  // namespace
}  // namespace phasor::kernels

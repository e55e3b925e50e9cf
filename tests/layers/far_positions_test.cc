// PE and RoPE rows at positions far past 2^24, up to the last one accepted
// (kMaxPosition - 1 = 2^40 - 1), against sinl and cosl of the angle
// pos·base^(-2i/d) formed here in long double: every mode that reaches such
// positions (on the fly, auto past its table, the direct baseline), both
// layouts and denominators, embedding + PE, RoPE's rows for every scaling and
// its rotation of q and k. Mode cached cannot reach them: its table holds at
// most 2^31 values.
//
// The reference is good to about 1e-7 there: the long double product
// pos·freq rounds by at most 2^-24 rad below 2^40, and glibc's sinl and cosl
// reduce their argument exactly (checked once by hand against mpmath at
// position 2^40 - 3, d_model 512 and 64: within 4e-8).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "engine/weights.h"
#include "layers/embedding.h"
#include "layers/rope.h"
#include "layers/sinusoidal.h"
#include "tests/support/max_error.h"
#include "tests/support/random_weights.h"
#include "tests/support/rope_reference.h"

namespace phasor {
namespace {

constexpr double kExact = 2e-6;  // the contract's bound, now for every accepted position
constexpr int64_t kRows = 40;    // rows checked from each first position

// First positions: across 2^32 (and the exact row there), near 10^10 and
// 1.2·10^11, and the last kRows rows accepted.
std::vector<int64_t> FarFirsts() {
  return {(int64_t{1} << 32) - 5, int64_t{10000000000} - 7, int64_t{120000000000} + 3,
          kMaxPosition - kRows};
}

const char* Name(int64_t first) {
  if (first < (int64_t{1} << 33)) return "2^32";
  if (first < int64_t{20000000000}) return "1e10";
  if (first < int64_t{200000000000}) return "1.2e11";
  return "2^40-40";
}

// freq_i of the formula, in long double: base^(-2i/d) or base^(-i/(d/2 - 1)).
long double Freq(int64_t i, int64_t d, long double base, PeDenominator den) {
  const long double e = den == PeDenominator::kDModel
                            ? 2.0L * static_cast<long double>(i) / static_cast<long double>(d)
                            : static_cast<long double>(i) / static_cast<long double>(d / 2 - 1);
  return powl(base, -e);
}

// The exact PE row of pos: [d] in long double.
std::vector<long double> ExactRow(int64_t pos, int64_t d, PeLayout layout, PeDenominator den) {
  std::vector<long double> row(d);
  const int64_t half = d / 2;
  for (int64_t i = 0; i < half; ++i) {
    const long double angle = static_cast<long double>(pos) * Freq(i, d, 10000.0L, den);
    const int64_t s = layout == PeLayout::kInterleaved ? 2 * i : i;
    const int64_t c = layout == PeLayout::kInterleaved ? 2 * i + 1 : half + i;
    row[s] = sinl(angle);
    row[c] = cosl(angle);
  }
  return row;
}

// Rows [n, d_model] of positions first.. of PE o against ExactRow, plus token
// rows if any (tokens: [n, d_model] already scaled).
testing::MaxError RowsError(const SinusoidalOptions& o, const std::vector<float>& rows,
                            int64_t first, int64_t n, const std::vector<float>* tokens = nullptr) {
  const int64_t d = o.d_model;
  testing::MaxError err(d);
  for (int64_t j = 0; j < n; ++j) {
    const std::vector<long double> want = ExactRow(first + j, d, o.layout, o.denominator);
    for (int64_t k = 0; k < d; ++k) {
      const long double t = tokens ? (*tokens)[j * d + k] : 0.0L;
      err.Add(j * d + k, rows[j * d + k], want[k] + t);
    }
  }
  return err;
}

enum class Way { kOnTheFly, kAuto, kDirect };

const char* ToString(Way w) {
  return w == Way::kOnTheFly ? "on_the_fly" : (w == Way::kAuto ? "auto" : "direct");
}

TEST(FarPositionsTest, PeRowsAreExactUpTo2p40) {
  for (int64_t d : {int64_t{512}, int64_t{64}}) {
    for (Way way : {Way::kOnTheFly, Way::kAuto, Way::kDirect}) {
      for (PeLayout layout : {PeLayout::kInterleaved, PeLayout::kSplit}) {
        for (PeDenominator den : {PeDenominator::kDModel, PeDenominator::kHalfMinusOne}) {
          SinusoidalOptions o;
          o.d_model = d;
          o.layout = layout;
          o.denominator = den;
          o.mode = way == Way::kAuto ? PeMode::kAuto : PeMode::kOnTheFly;
          o.max_len = way == Way::kAuto ? 64 : 0;
          const SinusoidalEncoding pe(o);
          std::vector<float> rows(kRows * d);
          for (int64_t first : FarFirsts()) {
            if (way == Way::kDirect) {
              pe.FillDirect(first, kRows, nullptr, rows.data());
            } else {
              pe.Fill(first, kRows, rows.data());
            }
            const testing::MaxError err = RowsError(o, rows, first, kRows);
            EXPECT_LE(err, kExact)
                << "d_model " << d << " " << ToString(way) << " " << phasor::ToString(layout) << " "
                << phasor::ToString(den) << " first " << first << ": " << err;
            if (layout == PeLayout::kInterleaved && den == PeDenominator::kDModel) {
              std::printf("PE max abs error at %-7s d_model %-3lld %-10s %.3g\n", Name(first),
                          static_cast<long long>(d), ToString(way), err.value());
            }
          }
        }
      }
    }
  }
}

// One row alone, at the last position accepted and just before 2^32: a call
// that starts and ends inside one block.
TEST(FarPositionsTest, SingleRowsAtTheEnds) {
  SinusoidalOptions o;
  o.d_model = 512;
  o.mode = PeMode::kOnTheFly;
  const SinusoidalEncoding pe(o);
  std::vector<float> row(512);
  for (int64_t pos : {kMaxPosition - 1, kMaxPosition - 3, (int64_t{1} << 32) - 1}) {
    pe.Fill(pos, 1, row.data());
    EXPECT_LE(RowsError(o, row, pos, 1), kExact) << pos;
  }
}

using testing::RandomEmbedding;

// Embedding + PE with the sequence starting far out (offset): the token row
// plus the exact PE row. Two roundings to float beyond the PE's bound (the
// scaled token value, then the sum), values below 4.5 as in embedding_test.
TEST(FarPositionsTest, EmbeddingPlusPeIsExactUpTo2p40) {
  constexpr double kTol = kExact + 2 * 0x1p-22;
  const int64_t vocab = 37;
  for (int64_t d : {int64_t{512}, int64_t{64}}) {
    for (PeMode mode : {PeMode::kOnTheFly, PeMode::kAuto}) {
      SinusoidalOptions po;
      po.d_model = d;
      po.mode = mode;
      po.max_len = mode == PeMode::kAuto ? 64 : 0;
      const SinusoidalEncoding pe(po);
      Weights w = RandomEmbedding(vocab, d, 5);
      const float* table = w.Get("embedding.weight").data.data();
      std::vector<int32_t> ids(kRows);
      for (int64_t j = 0; j < kRows; ++j) ids[j] = static_cast<int32_t>((j * 11) % vocab);
      std::vector<float> tokens(kRows * d), out(kRows * d);
      for (int64_t first : FarFirsts()) {
        const Embedding emb(w, {vocab, d, /*scale_embedding=*/true, first}, &pe);
        emb.Forward(ids.data(), 1, kRows, out.data());
        const float scale = std::sqrt(static_cast<float>(d));
        for (int64_t j = 0; j < kRows; ++j) {
          for (int64_t k = 0; k < d; ++k) tokens[j * d + k] = table[ids[j] * d + k] * scale;
        }
        const testing::MaxError err = RowsError(po, out, first, kRows, &tokens);
        EXPECT_LE(err, kTol) << "d_model " << d << " " << phasor::ToString(mode) << " first "
                             << first << ": " << err;
        std::printf("embedding + PE max abs error at %-7s d_model %-3lld %-10s %.3g\n", Name(first),
                    static_cast<long long>(d), phasor::ToString(mode), err.value());
      }
    }
  }
}

// RoPE's cos | sin rows for every scaling of tests/support/rope_reference.h,
// far out: within 2e-6·attention_factor of long double.
TEST(FarPositionsTest, RopeRowsAreExactUpTo2p40) {
  for (PeMode mode : {PeMode::kOnTheFly, PeMode::kAuto}) {
    for (const testing::Case& cs : testing::Cases()) {
      const testing::Ref& c = cs.ref;
      const Rope rope(testing::ToOptions(c, testing::DHeadFor(c), mode, 64));
      const int64_t r = c.r, half = r / 2;
      const long double af = testing::RefAttentionFactor(c);
      std::vector<float> rows(kRows * r);
      for (int64_t first : FarFirsts()) {
        rope.FillCosSin(first, kRows, rows.data());
        const std::vector<long double> inv = testing::RefInvFreq(c, first + kRows);
        testing::MaxError err(r);
        for (int64_t j = 0; j < kRows; ++j) {
          for (int64_t i = 0; i < half; ++i) {
            const long double angle = static_cast<long double>(first + j) * inv[i];
            err.Add(j * r + i, rows[j * r + i], af * cosl(angle));
            err.Add(j * r + half + i, rows[j * r + half + i], af * sinl(angle));
          }
        }
        EXPECT_LE(err, kExact * static_cast<double>(std::max<long double>(af, 1)))
            << cs.name << " " << phasor::ToString(mode) << " first " << first << ": " << err;
        if (mode == PeMode::kOnTheFly) {
          std::printf("RoPE cos/sin max abs error at %-7s %-30s %.3g\n", Name(first), cs.name,
                      err.value());
        }
      }
    }
  }
}

// RoPE applied to q and k far out, against the rotation in long double: each
// output is x0·cos − x1·sin or x0·sin + x1·cos with |x| <= 1, so its error is
// at most 2·2e-6 from the rows plus a few float roundings.
TEST(FarPositionsTest, RopeApplyIsExactUpTo2p40) {
  constexpr double kTol = 2 * kExact + 4 * 0x1p-24;
  const int64_t d_model = 128, n_heads = 2, d_head = 64, half = d_head / 2;
  for (RopeLayout layout : {RopeLayout::kHalf, RopeLayout::kInterleaved}) {
    RopeOptions o;
    o.d_head = d_head;
    o.layout = layout;
    o.mode = PeMode::kOnTheFly;
    const Rope rope(o);
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> qkv(kRows * 3 * d_model);
    for (int64_t first : FarFirsts()) {
      for (float& v : qkv) v = u(rng);
      const std::vector<float> in = qkv;
      rope.ApplyAt(qkv.data(), 1, kRows, first, d_model, n_heads);
      testing::MaxError err(3 * d_model);
      for (int64_t j = 0; j < kRows; ++j) {
        const long double pos = static_cast<long double>(first + j);
        for (int64_t h = 0; h < 2 * n_heads; ++h) {  // q's heads, then k's
          const int64_t at = j * 3 * d_model + h * d_head;
          for (int64_t i = 0; i < half; ++i) {
            const int64_t a = at + (layout == RopeLayout::kHalf ? i : 2 * i);
            const int64_t b = at + (layout == RopeLayout::kHalf ? half + i : 2 * i + 1);
            const long double angle = pos * Freq(i, d_head, 10000.0L, PeDenominator::kDModel);
            const long double cs = cosl(angle), sn = sinl(angle);
            err.Add(a, qkv[a], in[a] * cs - in[b] * sn);
            err.Add(b, qkv[b], in[a] * sn + in[b] * cs);
          }
        }
        for (int64_t k = 2 * d_model; k < 3 * d_model; ++k) {  // v untouched
          err.Add(j * 3 * d_model + k, qkv[j * 3 * d_model + k], in[j * 3 * d_model + k]);
        }
      }
      EXPECT_LE(err, kTol) << ToString(layout) << " first " << first << ": " << err;
    }
  }
}

}  // namespace
}  // namespace phasor

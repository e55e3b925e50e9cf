// Attention's products through oneDNN (engine/kernels/onednn_attention.h), on
// every CPU with the amx target (forced where it has no AMX: oneDNN's AVX-512
// kernels): each product against a long double computation on inputs already
// bfloat16 (float32 sums: within d·2^-24 of Σ|terms|), in calls of either
// row count; int8 scores the same bits as the avx512 target's int8 panel kernel; the tile against a
// naive twin in double (bfloat16 weights: as attention_bf16_test.cc's bound), for sequence lengths
// on both sides of a key block, one token, a band, and a scratch full of garbage giving the same
// bits.
#include "engine/kernels/onednn_attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "engine/aligned_allocator.h"
#include "engine/cpu.h"
#include "engine/kernels/gemm_bf16.h"
#include "engine/kernels/gemm_int8.h"
#include "engine/kernels/kernel_table.h"
#include "tests/support/kernel_test_util.h"

namespace phasor::kernels {
namespace {

using phasor::testing::IsaGuard;
using phasor::testing::Random;

constexpr int64_t kBlock = kOnednnKeyBlock;

using Bytes = std::vector<uint8_t, AlignedAllocator<uint8_t>>;

// x rounded to bfloat16 and back: the inputs the products take unchanged.
std::vector<float> Rounded(std::vector<float> x) {
  for (float& f : x) f = FromBf16(ToBf16(f));
  return x;
}

// n keys and values [n, ld] (ld = d + 3) from column 1, one block.
struct Block {
  int64_t n, d, ld;
  std::vector<float> k, v;
  Bytes packed;
  Block(int64_t n_keys, int64_t d_head, bool int8, uint32_t seed)
      : n(n_keys), d(d_head), ld(d_head + 3) {
    k = Rounded(Random(n * ld, seed, -2.0f, 2.0f));
    v = Rounded(Random(n * ld, seed + 1, -1.0f, 1.0f));
    packed.assign(static_cast<size_t>(OnednnAttentionBlockBytes(d, int8)), 0xA5);
    PackOnednnBlock(k.data() + 1, v.data() + 1, ld, n, d, int8, packed.data());
  }
};

TEST(OnednnAttentionTest, ProductsMatchLongDoubleOnRoundedInputs) {
  SKIP_WITHOUT_AMX_TARGET();
  IsaGuard guard;
  SetIsa(Isa::kAmx);
  for (int64_t rows : {kOnednnRows, kOnednnTileRows}) {
    for (int64_t d : {1, 16, 33, 64, 96}) {
      for (int64_t n : {1, 31, 100, 128}) {
        const Block b(n, d, false, 3);
        const std::vector<float> q = Rounded(Random(rows * d, 5, -2.0f, 2.0f));  // [rows, d]
        std::vector<uint16_t> qb(q.size());
        RoundBf16(q.data(), static_cast<int64_t>(q.size()), qb.data());
        std::vector<float> s(rows * kBlock, NAN);
        OnednnScores(rows, qb.data(), nullptr, b.packed.data(), d, false, s.data());
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            long double exact = 0, size = 0;
            for (int64_t c = 0; c < d; ++c) {
              const long double t = static_cast<long double>(q[i * d + c]) * b.k[j * b.ld + 1 + c];
              exact += t;
              size += std::fabs(t);
            }
            ASSERT_LE(std::fabs(s[i * kBlock + j] - exact), d * std::ldexp(size, -24) + 1e-30)
                << rows << " rows, d " << d << ", " << n << " keys: score " << i << "," << j;
          }
        }
        // Weights: a row's p past n 0 (as the tile writes them), the rest rounded.
        std::vector<float> p = Rounded(Random(rows * kBlock, 6, 0.0f, 1.0f));
        for (int64_t i = 0; i < rows; ++i)
          std::fill(&p[i * kBlock + n], &p[(i + 1) * kBlock], 0.0f);
        std::vector<uint16_t> pb(p.size());
        RoundBf16(p.data(), static_cast<int64_t>(p.size()), pb.data());
        std::vector<float> o(rows * d, NAN);
        OnednnWeighted(rows, pb.data(), b.packed.data(), d, false, o.data());
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t c = 0; c < d; ++c) {
            long double exact = 0, size = 0;
            for (int64_t j = 0; j < n; ++j) {
              const long double t =
                  static_cast<long double>(p[i * kBlock + j]) * b.v[j * b.ld + 1 + c];
              exact += t;
              size += std::fabs(t);
            }
            ASSERT_LE(std::fabs(o[i * d + c] - exact), n * std::ldexp(size, -24) + 1e-30)
                << rows << " rows, d " << d << ", " << n << " keys: output " << i << "," << c;
          }
        }
      }
    }
  }
}

uint32_t BitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

TEST(OnednnAttentionTest, Int8ScoresAreTheAvx512TargetsBits) {
  SKIP_WITHOUT_AMX_TARGET();
  IsaGuard guard;
  for (int64_t rows : {kOnednnRows, kOnednnTileRows}) {
    for (int64_t d : {1, 16, 33, 64, 96}) {
      for (int64_t n : {1, 37, 128}) {
        std::vector<float> k = Random(n * d, 11, -3.0f, 3.0f),
                           q = Random(rows * d, 12, -3.0f, 3.0f);
        if (n > 3) {  // a zero key (scale 0), an infinite one (NaN scale)
          std::fill(k.begin() + d, k.begin() + 2 * d, 0.0f);
          k[2 * d] = std::numeric_limits<float>::infinity();
        }
        std::fill(q.begin(), q.begin() + d, 0.0f);  // a zero query
        const int64_t d4 = (d + 3) / 4 * 4;
        const float scale = 0.125f;
        std::vector<uint8_t> q8(rows * d4);
        std::vector<float> sq(rows);
        for (int64_t i = 0; i < rows; ++i) {
          sq[i] = QuantizeRowInt8(&q[i * d], d, d4, &q8[i * d4]) * scale;
        }
        // avx512's: the int8 panel kernel over PackKeysInt8's panels.
        SetIsa(Isa::kAvx512);
        std::vector<uint16_t, AlignedAllocator<uint16_t>> kb(KeysInt8Values(n, d));
        PackKeysInt8(k.data(), d, n, d, kb.data());
        const auto* bytes = reinterpret_cast<const uint8_t*>(kb.data());
        const int64_t panel_bytes = d4 * 32 + 256;
        alignas(64) static const float kZero[32] = {};
        std::vector<float> want(rows * n);
        for (int64_t p = 0; p * 32 < n; ++p) {
          const uint8_t* panel = bytes + p * panel_bytes;
          const auto* sums = reinterpret_cast<const int32_t*>(panel + d4 * 32);
          Kernels().int8_panel(
              Int8PanelArgs{q8.data(), d4, rows, sq.data(), reinterpret_cast<const int8_t*>(panel),
                            d4 / 4, sums, reinterpret_cast<const float*>(sums + 32), kZero, false,
                            want.data() + p * 32, n, std::min<int64_t>(32, n - p * 32)});
        }
        SetIsa(Isa::kAmx);
        Bytes block(static_cast<size_t>(OnednnAttentionBlockBytes(d, true)));
        PackOnednnBlock(k.data(), k.data(), d, n, d, true, block.data());
        std::vector<float> got(rows * kBlock);
        OnednnScores(rows, q8.data(), sq.data(), block.data(), d, true, got.data());
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            ASSERT_EQ(BitsOf(got[i * kBlock + j]), BitsOf(want[i * n + j]))
                << rows << " rows, d " << d << ", " << n << " keys: score " << i << "," << j
                << " got " << got[i * kBlock + j] << " want " << want[i * n + j];
          }
        }
      }
    }
  }
}

double Bf16(float x) { return FromBf16(ToBf16(x)); }

// The naive twin of the tile, in double: scores of rounded operands (int8:
// the dequantized int8 product, which the test above pins), a full softmax
// over the keys of the band, exact weights.
std::vector<double> Twin(const AttentionBf16Args& a, const std::vector<float>& k,
                         const std::vector<float>& v, int64_t ld) {
  std::vector<double> out(static_cast<size_t>(a.n_q * a.d_head), 0.0), s(a.n_keys);
  const int64_t d4 = (a.d_head + 3) / 4 * 4;
  std::vector<uint8_t> q8(d4), k8(d4);
  for (int64_t i = 0; i < a.n_q; ++i) {
    double max = -INFINITY, sum = 0.0;
    const int64_t pos = a.band.q_pos + i;
    for (int64_t j = 0; j < a.n_keys; ++j) {
      const bool seen = (a.band.before < 0 || j >= pos - a.band.before) &&
                        (a.band.after < 0 || j <= pos + a.band.after);
      double dot = 0.0;
      if (a.int8_keys) {
        const float sq = QuantizeRowInt8(a.q + i * a.ldq, a.d_head, d4, q8.data());
        const float sk = QuantizeRowInt8(&k[j * ld], a.d_head, d4, k8.data());
        for (int64_t c = 0; c < d4; ++c) dot += (q8[c] - 128.0) * (k8[c] - 128.0);
        dot *= static_cast<double>(sq) * a.scale * sk;
      } else {
        for (int64_t c = 0; c < a.d_head; ++c) {
          dot += Bf16(a.q[i * a.ldq + c] * a.scale) * Bf16(k[j * ld + c]);
        }
      }
      s[j] = seen ? dot : -INFINITY;
      max = std::max(max, s[j]);
    }
    if (max == -INFINITY) continue;
    for (int64_t j = 0; j < a.n_keys; ++j) sum += (s[j] = std::exp(s[j] - max));
    for (int64_t c = 0; c < a.d_head; ++c) {
      double acc = 0.0;
      for (int64_t j = 0; j < a.n_keys; ++j) acc += s[j] * Bf16(v[j * ld + c]);
      out[i * a.d_head + c] = acc / sum;
    }
  }
  return out;
}

struct TileCase {
  int64_t n_q, n_keys, d_head;
  KeyBand band;
};

// The tile at bf16 and int8 against the twin; the same bits again with
// another scratch full of garbage.
void ExpectTheTwin(const TileCase& t, bool int8) {
  const int64_t ld = t.d_head + 2;
  const std::vector<float> q = Random(t.n_q * ld, 21, -2.0f, 2.0f);
  const std::vector<float> k = Random(t.n_keys * ld, 22, -2.0f, 2.0f);
  const std::vector<float> v = Random(t.n_keys * ld, 23, -1.0f, 1.0f);
  const int64_t bytes = OnednnAttentionBlockBytes(t.d_head, int8);
  Bytes blocks(static_cast<size_t>(OnednnKeyBlocks(t.n_keys) * bytes), 0x5A);
  for (int64_t j0 = 0, i = 0; j0 < t.n_keys; j0 += kBlock, ++i) {
    PackOnednnBlock(&k[j0 * ld], &v[j0 * ld], ld, std::min(kBlock, t.n_keys - j0), t.d_head, int8,
                    blocks.data() + i * bytes);
  }
  std::vector<float> out(t.n_q * ld, NAN), again(t.n_q * ld, NAN);
  AttentionBf16Args a;
  a.q = q.data();
  a.out = out.data();
  a.ldq = a.ldo = ld;
  a.n_q = t.n_q;
  a.n_keys = t.n_keys;
  a.d_head = t.d_head;
  a.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(t.d_head)));
  a.int8_keys = int8;
  a.band = t.band;
  const int64_t floats = AttentionOnednnScratchFloats(t.n_q, t.d_head);
  std::vector<float, AlignedAllocator<float>> scratch(floats, NAN);
  AttentionTileOnednn(a, blocks.data(), scratch.data());
  const std::vector<double> want = Twin(a, k, v, ld);
  const std::string what = std::to_string(t.n_q) + " queries, " + std::to_string(t.n_keys) +
                           " keys of " + std::to_string(t.d_head) + (int8 ? ", int8" : ", bf16");
  for (int64_t i = 0; i < t.n_q; ++i) {
    for (int64_t c = 0; c < t.d_head; ++c) {
      ASSERT_NEAR(out[i * ld + c], want[i * t.d_head + c], 2.5e-3) << what << ": " << i << "," << c;
    }
    ASSERT_TRUE(std::isnan(out[i * ld + t.d_head])) << what << ": wrote past row " << i;
  }
  std::vector<float> garbage = Random(floats + 16, 24, -1e3f, 1e3f);
  a.out = again.data();
  AttentionTileOnednn(a, blocks.data(), garbage.data() + 16);
  EXPECT_TRUE(testing::SameBits(out, again)) << what;
}

TEST(OnednnAttentionTest, TileMatchesTheNaiveTwin) {
  SKIP_WITHOUT_AMX_TARGET();
  IsaGuard guard;
  SetIsa(Isa::kAmx);
  const TileCase cases[] = {
      {1, 1, 16, {}},
      {1, 32, 64, {}},
      {33, 127, 64, {}},
      {128, 128, 64, {}},
      {7, 129, 33, {}},
      {128, 300, 96, {}},
      {40, 513, 64, {}},
      {5, 200, 1, {}},
      {64, 70, 64, {0, -1, 0}},      // causal: later blocks masked
      {20, 400, 32, {200, 50, 10}},  // a window starting inside a block
      {9, 300, 16, {250, 0, 0}},     // one key each
  };
  for (const TileCase& t : cases) {
    ExpectTheTwin(t, false);
    ExpectTheTwin(t, true);
  }
}

}  // namespace
}  // namespace phasor::kernels

#include "engine/kernels/attention_bf16.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/kernels/gemm_bf16.h"
#include "engine/kernels/gemm_int8.h"
#include "engine/kernels/kernel_table.h"
#include "engine/kernels/rotate_rows.h"
#include "engine/kernels/vector_math.h"
#include "engine/tensor.h"

namespace phasor::kernels {
namespace {

#include "engine/kernels/attention_tile.inc"

constexpr int64_t kPanel = 32;  // columns of a bfloat16 panel (Bf16PanelArgs)
constexpr int64_t kChunk = 64;  // key columns transposed at a time on the stack (even)

alignas(64) constexpr float kZeroBias[kPanel] = {};

int64_t Even(int64_t n) { return n + (n & 1); }
int64_t Panels(int64_t n) { return (n + kPanel - 1) / kPanel; }
int64_t Quads(int64_t n) { return (n + 3) / 4 * 4; }
// Bytes of one panel of int8 keys: [d4/4][32][4] int8, sums [32], scales [32].
int64_t Int8PanelBytes(int64_t d_head) { return Quads(d_head) * kPanel + 2 * 4 * kPanel; }

}  // namespace

int64_t KeysBf16Values(int64_t n_keys, int64_t d_head) {
  return Panels(n_keys) * kPanel * Even(d_head);
}

int64_t ValuesBf16Values(int64_t n_keys, int64_t d_head) {
  return Panels(d_head) * kPanel * Even(n_keys);
}

void PackKeysBf16(const float* k, int64_t ld, int64_t n_keys, int64_t d_head, uint16_t* out) {
  assert(n_keys >= 0 && d_head > 0 && ld >= d_head);
  const int64_t d_even = Even(d_head);
  // Per panel of 32 keys and chunk of kChunk columns: the keys transposed
  // (attention.h's float32 key panel, zero past n_keys), then columns (c, c + 1) paired as the
  // panel's rows 64·(c/2) ..: pair i of key j at (j/32)·32·d_even + 64·i + 2·(j%32).
  alignas(64) float t[kChunk * kPanel];  // [columns, 32 keys]
  for (int64_t j0 = 0; j0 < n_keys; j0 += kPanel) {
    const int64_t m = std::min(kPanel, n_keys - j0);
    uint16_t* panel = out + j0 * d_even;  // [d_even / 2, 32, 2]
    for (int64_t c0 = 0; c0 < d_head; c0 += kChunk) {
      const int64_t nc = std::min(kChunk, d_head - c0);
      PackKeyPanels(k + j0 * ld + c0, ld, m, nc, t);  // one float32 panel, zero past m
      PairRowsBf16(t, kPanel, nc, kPanel, panel + c0 / 2 * 2 * kPanel, 2 * kPanel);
    }
  }
}

int64_t KeysInt8Values(int64_t n_keys, int64_t d_head) {
  return Panels(n_keys) * Int8PanelBytes(d_head) / 2;
}

void PackKeysInt8(const float* k, int64_t ld, int64_t n_keys, int64_t d_head, uint16_t* out) {
  assert(n_keys >= 0 && d_head > 0 && ld >= d_head);
  const int64_t d4 = Quads(d_head), panel_bytes = Int8PanelBytes(d_head);
  // A panel's keys quantized as rows of activations (q + 128), [32, d4] bytes:
  // on the stack for heads of up to 128 columns, else once a call on the heap.
  alignas(64) uint8_t stack[kPanel * 128];
  std::vector<uint8_t> heap(d4 > 128 ? static_cast<size_t>(kPanel * d4) : 0);
  uint8_t* rows = d4 > 128 ? heap.data() : stack;
  auto* bytes = reinterpret_cast<uint8_t*>(out);
  for (int64_t j0 = 0; j0 < n_keys; j0 += kPanel) {
    const int64_t m = std::min(kPanel, n_keys - j0);
    uint8_t* panel = bytes + j0 / kPanel * panel_bytes;  // [d4/4][32][4] | sums | scales
    auto* sums = reinterpret_cast<int32_t*>(panel + d4 * kPanel);
    auto* scales = reinterpret_cast<float*>(sums + kPanel);
    std::fill(sums, sums + kPanel, 0);
    std::fill(scales, scales + kPanel, 0.0f);
    for (int64_t j = 0; j < m; ++j) {
      uint8_t* row = rows + j * d4;
      scales[j] = QuantizeRowInt8(k + (j0 + j) * ld, d_head, d4, row);
      int32_t sum = 0;  // Σ q = Σ (q + 128) - 128·d4
      for (int64_t c = 0; c < d4; ++c) sum += row[c];
      sums[j] = sum - 128 * static_cast<int32_t>(d4);
      for (int64_t c = 0; c < d4; ++c) row[c] ^= 0x80;  // q + 128 to the signed byte q
    }
    // Each key's quadruples of bytes to [d4/4][32] 32-bit words: the float32 key
    // panel's transposition, moving bits only; zero past m.
    PackKeyPanels(reinterpret_cast<const float*>(rows), d4 / 4, m, d4 / 4,
                  reinterpret_cast<float*>(panel));
  }
}

void PackValuesBf16(const float* v, int64_t ld, int64_t n_keys, int64_t d_head, uint16_t* out) {
  assert(n_keys >= 0 && d_head > 0 && ld >= d_head);
  const int64_t panel_values = kPanel * Even(n_keys);  // one panel of 32 columns
  // The columns past d_head in the last panel are zero; every other value is
  // written below, the key past an odd n_keys as zero.
  const int64_t full = d_head / kPanel * panel_values;
  std::fill(out + full, out + ValuesBf16Values(n_keys, d_head), uint16_t{0});
  // Column c of the pair (j, j + 1): 4 bytes at (c/32)·panel + 64·(j/2) + 2·(c%32).
  for (int64_t c0 = 0; c0 < d_head; c0 += kPanel) {
    PairRowsBf16(v + c0, ld, n_keys, std::min(kPanel, d_head - c0),
                 out + c0 / kPanel * panel_values, 2 * kPanel);
  }
}

int64_t AttentionBf16ScratchFloats(int64_t max_q, int64_t d_head) {
  // Floats: scores [max_q, key tile], the tile's p·v [max_q, d_head], running
  // max, sum and rescale [max_q] each; then bfloat16 values, two a float: q·scale
  // [max_q, d_even] and p [max_q, key tile].
  // With int8 keys, the queries' bytes [max_q, d4] (d4 <= 2·d_even) take
  // q·scale's place and their scales [max_q] floats follow the rescales.
  const int64_t halves = max_q * Even(d_head) + max_q * kAttentionKeyTile;
  return max_q * kAttentionKeyTile + max_q * d_head + 4 * max_q + (halves + 1) / 2;
}

namespace {

// The tile's queries as the score product reads them: bf16(q·scale) [n_q,
// d_even], or with int8 keys q8(q) + 128 [n_q, d4] and its scales·scale [n_q].
struct Queries {
  uint16_t* bf16;
  uint8_t* int8;
  float* scales;
  int64_t d_even, d4;
};

// Makes the queries from a.q; tmp: d_head floats. With int8 keys q itself is
// quantized and a.scale goes into its scale (for a power of two, as 1/sqrt(64),
// the same bytes and scale as quantizing q·scale).
void PrepareQueries(const AttentionBf16Args& a, const Queries& q, float* tmp) {
  for (int64_t i = 0; i < a.n_q; ++i) {
    if (a.int8_keys) {
      q.scales[i] = QuantizeRowInt8(a.q + i * a.ldq, a.d_head, q.d4, q.int8 + i * q.d4) * a.scale;
      continue;
    }
    ScaleRow(a.q + i * a.ldq, a.scale, a.d_head, tmp);
    RoundBf16(tmp, a.d_head, q.bf16 + i * q.d_even);
    if (q.d_even > a.d_head) q.bf16[i * q.d_even + a.d_head] = 0;
  }
}

// scores [n_q, kt] (row stride ld) of the key tile from key j0: bf16(q·scale) ·
// bf16(k_tile)ᵀ, or the int8 product dequantized, one key panel at a time.
void ScoreTile(const AttentionBf16Args& a, const Queries& q, int64_t j0, int64_t kt, float* scores,
               int64_t ld) {
  const KernelTable& kernels = Kernels();
  for (int64_t p = 0; p * kPanel < kt; ++p) {
    const int64_t panel = j0 / kPanel + p, n_valid = std::min(kPanel, kt - p * kPanel);
    if (!a.int8_keys) {
      kernels.bf16_panel(Bf16PanelArgs{q.bf16, q.d_even, a.n_q, a.k + panel * kPanel * q.d_even,
                                       q.d_even / 2, kZeroBias, false, scores + p * kPanel, ld,
                                       n_valid});
      continue;
    }
    // [d4/4][32][4] int8 | sums [32] | scales [32]
    const auto* bytes = reinterpret_cast<const uint8_t*>(a.k) + panel * Int8PanelBytes(a.d_head);
    const auto* sums = reinterpret_cast<const int32_t*>(bytes + q.d4 * kPanel);
    kernels.int8_panel(Int8PanelArgs{q.int8, q.d4, a.n_q, q.scales,
                                     reinterpret_cast<const int8_t*>(bytes), q.d4 / 4, sums,
                                     reinterpret_cast<const float*>(sums + kPanel), kZeroBias,
                                     false, scores + p * kPanel, ld, n_valid});
  }
}

}  // namespace

void AttentionTileBf16(const AttentionBf16Args& a, float* scratch) {
  if (DoneBeforeItStarts(a)) return;
  const int64_t n_q = a.n_q, d_head = a.d_head, d_even = Even(d_head);
  constexpr int64_t kt_max = kAttentionKeyTile;
  static_assert(kt_max % kPanel == 0, "key tiles start on a packed key and value panel");
  const int64_t ld = ScoresStride(a.n_keys);               // of scores and p
  float* scores = scratch;                                 // [n_q, ld] in n_q·kt_max floats
  float* partial = scores + n_q * kt_max;                  // [n_q, d_head]: this key tile's p·v
  float* run_max = partial + n_q * d_head;                 // [n_q]
  float* run_sum = run_max + n_q;                          // [n_q]
  float* rescales = run_sum + n_q;                         // [n_q]: of the running sums
  float* q_scales = rescales + n_q;                        // [n_q]: of q8, times scale
  auto* qb = reinterpret_cast<uint16_t*>(q_scales + n_q);  // [n_q, d_even]: bf16(q·scale)
  auto* q8 = reinterpret_cast<uint8_t*>(qb);               // or [n_q, d4]: q8(q) + 128 (int8 keys)
  uint16_t* pb = qb + n_q * d_even;  // [n_q, ld] in n_q·kt_max halves: bf16(p)
  const TileKeys keys = KeysOfTile(a);
  if (keys.begin >= keys.end) return ZeroOut(a);  // every key outside the band
  const Queries queries{qb, q8, q_scales, d_even, Quads(d_head)};
  PrepareQueries(a, queries, scores);
  std::fill(run_max, run_max + n_q, -std::numeric_limits<float>::infinity());

  const auto bf16_panel = Kernels().bf16_panel;
  const int64_t values_panel = kPanel * Even(a.n_keys);  // values of one packed value panel
  for (int64_t j0 = keys.begin; j0 < keys.end; j0 += kt_max) {
    const int64_t kt = std::min(kt_max, keys.end - j0);
    const bool first = j0 == keys.begin;
    ScoreTile(a, queries, j0, kt, scores, ld);
    for (int64_t i = 0; i < n_q; ++i) {
      float* row = scores + i * ld;  // [kt]
      AddDistanceBias(a, i, j0, kt, row);
      MaskOutsideBand(a, i, j0, kt, row);
      const float new_max = std::max(run_max[i], Max(row, kt));
      // p = bf16(exp(score - max)), and the sum of the rounded p: the weights
      // of v are then exactly normalised.
      const float sum = ExpBf16Sum(row, new_max, kt, pb + i * ld);
      if (first) {  // nothing to rescale yet
        run_sum[i] = sum;
      } else {
        rescales[i] = Rescale(run_max[i], new_max);
        run_sum[i] = run_sum[i] * rescales[i] + sum;
      }
      run_max[i] = new_max;
      if (kt & 1) pb[i * ld + kt] = 0;  // pairs with the value past the tile: 0 weight
    }
    // partial [n_q, d_head] = bf16(p) [n_q, kt] · bf16(v_tile) [kt, d_head];
    // the first tile's straight into out, the running, unnormalised Σ p·v.
    float* pv = first ? a.out : partial;
    const int64_t ld_pv = first ? a.ldo : d_head;
    for (int64_t p = 0; p * kPanel < d_head; ++p) {
      bf16_panel(Bf16PanelArgs{pb, ld, n_q, a.v + p * values_panel + j0 / 2 * 2 * kPanel,
                               (kt + 1) / 2, kZeroBias, false, pv + p * kPanel, ld_pv,
                               std::min(kPanel, d_head - p * kPanel)});
    }
    // Later tiles: out = out·rescale + partial, row by row.
    for (int64_t i = 0; !first && i < n_q; ++i) {
      float* o = a.out + i * a.ldo;
      ScaleAddRow(o, rescales[i], partial + i * d_head, d_head, o);
    }
  }
  for (int64_t i = 0; i < n_q; ++i) {  // run_sum >= 1, or 0 for a query that saw no key
    ScaleRow(a.out + i * a.ldo, InverseSum(run_sum[i]), d_head, a.out + i * a.ldo);
  }
}

}  // namespace phasor::kernels

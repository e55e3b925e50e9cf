#include "engine/kernels/attention_bf16.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "engine/kernels/gemm_bf16.h"
#include "engine/kernels/kernel_table.h"
#include "engine/kernels/rotate_rows.h"
#include "engine/kernels/vector_math.h"
#include "engine/tensor.h"

namespace phasor::kernels {
namespace {

using Stride = Eigen::OuterStride<>;
using StridedMap = Eigen::Map<MatRM, 0, Stride>;

constexpr int64_t kPanel = 32;  // columns of a bfloat16 panel (Bf16PanelArgs)
constexpr int64_t kChunk = 64;  // key columns transposed at a time on the stack (even)

alignas(64) constexpr float kZeroBias[kPanel] = {};

int64_t Even(int64_t n) { return n + (n & 1); }
int64_t Panels(int64_t n) { return (n + kPanel - 1) / kPanel; }

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
  const int64_t halves = max_q * Even(d_head) + max_q * kAttentionKeyTile;
  return max_q * kAttentionKeyTile + max_q * d_head + 3 * max_q + (halves + 1) / 2;
}

void AttentionTileBf16(const AttentionBf16Args& a, float* scratch) {
  assert(a.n_q >= 0 && a.n_keys >= 0 && a.d_head > 0);
  const int64_t n_q = a.n_q, d_head = a.d_head, d_even = Even(d_head);
  StridedMap out(a.out, n_q, d_head, Stride(a.ldo));
  if (n_q == 0) return;
  if (a.n_keys == 0) {  // every key masked
    out.setZero();
    return;
  }
  constexpr int64_t kt_max = kAttentionKeyTile;
  static_assert(kt_max % kPanel == 0, "key tiles start on a packed key and value panel");
  // The row stride of scores and p: a key tile, or the keys rounded up to 16
  // when fewer (even, with room for the zero past an odd count).
  const int64_t ld = std::min(kt_max, (a.n_keys + 15) / 16 * 16);
  float* scores = scratch;                                 // [n_q, ld] in n_q·kt_max floats
  float* partial = scores + n_q * kt_max;                  // [n_q, d_head]: this key tile's p·v
  float* run_max = partial + n_q * d_head;                 // [n_q]
  float* run_sum = run_max + n_q;                          // [n_q]
  float* rescales = run_sum + n_q;                         // [n_q]: of the running sums
  auto* qb = reinterpret_cast<uint16_t*>(rescales + n_q);  // [n_q, d_even]: bf16(q·scale)
  uint16_t* pb = qb + n_q * d_even;  // [n_q, ld] in n_q·kt_max halves: bf16(p)
  for (int64_t i = 0; i < n_q; ++i) {
    ScaleRow(a.q + i * a.ldq, a.scale, d_head, scores);
    RoundBf16(scores, d_head, qb + i * d_even);
    if (d_even > d_head) qb[i * d_even + d_head] = 0;
  }
  std::fill(run_max, run_max + n_q, -std::numeric_limits<float>::infinity());

  const auto bf16_panel = Kernels().bf16_panel;
  const int64_t values_panel = kPanel * Even(a.n_keys);  // values of one packed value panel
  for (int64_t j0 = 0; j0 < a.n_keys; j0 += kt_max) {
    const int64_t kt = std::min(kt_max, a.n_keys - j0);
    // scores [n_q, kt] = bf16(q·scale) · bf16(k_tile)ᵀ, one key panel at a time.
    for (int64_t p = 0; p * kPanel < kt; ++p) {
      bf16_panel(Bf16PanelArgs{qb, d_even, n_q, a.k + (j0 / kPanel + p) * kPanel * d_even,
                               d_even / 2, kZeroBias, false, scores + p * kPanel, ld,
                               std::min(kPanel, kt - p * kPanel)});
    }
    for (int64_t i = 0; i < n_q; ++i) {
      float* row = scores + i * ld;  // [kt]
      const float new_max = std::max(run_max[i], Max(row, kt));
      // p = bf16(exp(score - max)), and the sum of the rounded p: the weights
      // of v are then exactly normalised.
      const float sum = ExpBf16Sum(row, new_max, kt, pb + i * ld);
      if (j0 == 0) {  // nothing to rescale yet
        run_sum[i] = sum;
      } else {
        rescales[i] = std::exp(run_max[i] - new_max);
        run_sum[i] = run_sum[i] * rescales[i] + sum;
      }
      run_max[i] = new_max;
      if (kt & 1) pb[i * ld + kt] = 0;  // pairs with the packed zero past n_keys
    }
    // partial [n_q, d_head] = bf16(p) [n_q, kt] · bf16(v_tile) [kt, d_head];
    // the first tile's straight into out, the running, unnormalised Σ p·v.
    float* pv = j0 == 0 ? a.out : partial;
    const int64_t ld_pv = j0 == 0 ? a.ldo : d_head;
    for (int64_t p = 0; p * kPanel < d_head; ++p) {
      bf16_panel(Bf16PanelArgs{pb, ld, n_q, a.v + p * values_panel + j0 / 2 * 2 * kPanel,
                               (kt + 1) / 2, kZeroBias, false, pv + p * kPanel, ld_pv,
                               std::min(kPanel, d_head - p * kPanel)});
    }
    // Later tiles: out = out·rescale + partial, row by row.
    for (int64_t i = 0; j0 > 0 && i < n_q; ++i) {
      float* o = a.out + i * a.ldo;
      ScaleAddRow(o, rescales[i], partial + i * d_head, d_head, o);
    }
  }
  for (int64_t i = 0; i < n_q; ++i) {  // run_sum >= 1
    ScaleRow(a.out + i * a.ldo, 1.0f / run_sum[i], d_head, a.out + i * a.ldo);
  }
}

}  // namespace phasor::kernels

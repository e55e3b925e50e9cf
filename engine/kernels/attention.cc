#include "engine/kernels/attention.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/kernels/gemm.h"
#include "engine/kernels/kernel_table.h"
#include "engine/kernels/rotate_rows.h"
#include "engine/kernels/vector_math.h"
#include "engine/tensor.h"

namespace phasor::kernels {
namespace {

#include "engine/kernels/attention_tile.inc"

}  // namespace

int64_t KeyPanelFloats(int64_t n_keys, int64_t d_head) {
  return (n_keys + kGemmPanel - 1) / kGemmPanel * kGemmPanel * d_head;
}

void PackKeyPanels(const float* k, int64_t ldk, int64_t n_keys, int64_t d_head, float* out) {
  Kernels().transpose_panels(k, ldk, n_keys, d_head, out);
}

int64_t AttentionScratchFloats(int64_t max_q, int64_t d_head) {
  // q·scale [max_q, d_head], a key tile transposed [d_head, key tile], scores
  // [max_q, key tile], running max and sum [max_q] each.
  return max_q * d_head + d_head * kAttentionKeyTile + max_q * kAttentionKeyTile + 2 * max_q;
}

void AttentionTile(const AttentionArgs& a, float* scratch) {
  if (DoneBeforeItStarts(a)) return;
  const int64_t n_q = a.n_q, d_head = a.d_head;
  constexpr int64_t kt_max = kAttentionKeyTile;
  const int64_t ld = ScoresStride(a.n_keys);
  float* q = scratch;                           // [n_q, d_head], pre-scaled
  float* k_t = q + n_q * d_head;                // [kt_max / 32 panels][d_head][32]: kᵀ
  float* scores_data = k_t + d_head * kt_max;   // [n_q, ld] in n_q·kt_max floats
  float* run_max = scores_data + n_q * kt_max;  // [n_q]
  float* run_sum = run_max + n_q;               // [n_q]
  const TileKeys keys = KeysOfTile(a);
  if (keys.begin >= keys.end) return ZeroOut(a);  // every key outside the band
  for (int64_t i = 0; i < n_q; ++i) ScaleRow(a.q + i * a.ldq, a.scale, d_head, q + i * d_head);
  std::fill(run_max, run_max + n_q, -std::numeric_limits<float>::infinity());

  for (int64_t j0 = keys.begin; j0 < keys.end; j0 += kt_max) {
    const int64_t kt = std::min(kt_max, keys.end - j0);
    const bool first = j0 == keys.begin;
    // kᵀ in panels of kGemmPanel keys, so the scores are one panel product.
    const float* k_panels = a.k_panels ? a.k_panels + j0 * d_head : k_t;
    if (!a.k_panels) PackKeyPanels(a.k + j0 * a.ldk, a.ldk, kt, d_head, k_t);
    // scores [n_q, kt] = q · k_tileᵀ
    PanelProduct scores;
    scores.a = q;
    scores.lda = d_head;
    scores.b = k_panels;
    scores.ldb = kGemmPanel;
    scores.panel_stride = d_head * kGemmPanel;
    scores.c = scores_data;
    scores.ldc = ld;
    scores.rows = n_q;
    scores.k = d_head;
    scores.n = kt;
    GemmPanels(scores);
    for (int64_t i = 0; i < n_q; ++i) {
      float* row = scores_data + i * ld;  // [kt]
      AddDistanceBias(a, i, j0, kt, row);
      MaskOutsideBand(a, i, j0, kt, row);
      const float new_max = std::max(run_max[i], Max(row, kt));
      const float sum = ExpShiftedSum(row, new_max, kt, row);
      if (first) {  // nothing to rescale yet
        run_sum[i] = sum;
      } else {
        const float rescale = Rescale(run_max[i], new_max);
        run_sum[i] = run_sum[i] * rescale + sum;
        if (rescale != 1.0f) ScaleRow(a.out + i * a.ldo, rescale, d_head, a.out + i * a.ldo);
      }
      run_max[i] = new_max;
    }
    // out [n_q, d_head] (+)= p [n_q, kt] · v_tile [kt, d_head] (v rows are panels
    // as they stand): the running, unnormalised Σ p·v, the first tile's written
    // over whatever out held (a sum from +0, as an accumulation onto zeros).
    PanelProduct values;
    values.a = scores_data;
    values.lda = ld;
    values.b = a.v + j0 * a.ldv;
    values.ldb = a.ldv;
    values.panel_stride = kGemmPanel;
    values.c = a.out;
    values.ldc = a.ldo;
    values.rows = n_q;
    values.k = kt;
    values.n = d_head;
    values.accumulate = !first;
    GemmPanels(values);
  }
  for (int64_t i = 0; i < n_q; ++i) {  // run_sum >= 1, or 0 for a query that saw no key
    ScaleRow(a.out + i * a.ldo, InverseSum(run_sum[i]), d_head, a.out + i * a.ldo);
  }
}

void AttentionNaive(const AttentionArgs& a) {
  std::vector<double> p(static_cast<size_t>(a.n_keys));
  const KeyBand& band = a.band;
  for (int64_t i = 0; i < a.n_q; ++i) {
    const int64_t pos = band.q_pos + i;
    auto sees = [&](int64_t j) {
      return (band.before < 0 || pos - j <= band.before) &&
             (band.after < 0 || j - pos <= band.after);
    };
    double max = -std::numeric_limits<double>::infinity();
    int64_t seen = 0;
    for (int64_t j = 0; j < a.n_keys; ++j) {
      if (!sees(j)) continue;
      ++seen;
      double dot = 0.0;
      for (int64_t c = 0; c < a.d_head; ++c) {
        dot += static_cast<double>(a.q[i * a.ldq + c]) * a.k[j * a.ldk + c];
      }
      p[j] = dot * a.scale;
      if (a.distance_bias.bias != nullptr) {
        const int64_t r = a.distance_bias.radius;
        p[j] += a.distance_bias.bias[std::clamp<int64_t>(j - pos, -r, r) + r];
      }
      max = std::max(max, p[j]);
    }
    double sum = 0.0;
    for (int64_t j = 0; j < a.n_keys; ++j) {
      p[j] = sees(j) ? std::exp(p[j] - max) : 0.0;
      sum += p[j];
    }
    for (int64_t c = 0; c < a.d_head; ++c) {
      double acc = 0.0;
      for (int64_t j = 0; j < a.n_keys; ++j) acc += p[j] * a.v[j * a.ldv + c];
      a.out[i * a.ldo + c] = seen > 0 ? static_cast<float>(acc / sum) : 0.0f;
    }
  }
}

}  // namespace phasor::kernels

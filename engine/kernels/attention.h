// Scaled dot-product attention of one head over one sequence, for a tile of
// queries, with an online softmax (a running max and sum per query, as in
// FlashAttention):
//
//   out[i] = Σ_{j < n_keys} softmax_j(scale · q[i]·k[j]) · v[j]
//
// Keys j >= n_keys are masked out (key padding), and so are keys outside the
// query's band (KeyBand: causal, or a sliding window); a query that sees no
// key gets out = 0, never NaN. Keys are visited kAttentionKeyTile at a time, so the only score
// matrix is [n_q, kAttentionKeyTile]: memory O(n_q · key tile), whatever the
// sequence length.
//
// All matrices are row-major views with a row stride, so q, k and v can be
// the head's columns of a packed [tokens, 3·d_model] projection buffer and out
// the head's columns of a [tokens, d_model] buffer.
#pragma once

#include <cstdint>

namespace phasor::kernels {

// 512: the scores of a 128-query tile ([128, 512] floats, 256 KiB) stay in L2,
// and a row's max, exp and sum run over 512 keys at once. Measured against 128
// (BM_AttentionTile, BM_AttentionTileBf16, the encoder at int8): fewer online
// rescales and longer products, 7% faster at float32 and 10-18% at bfloat16.
inline constexpr int64_t kAttentionKeyTile = 512;

// Which keys each query of a tile sees, by key index: query i (i < n_q) at
// position q_pos + i sees key j iff q_pos + i - before <= j <= q_pos + i +
// after; a negative bound is no limit on that side. {-1, -1}: every key
// (bidirectional); after 0: causal; before = after = w: a window of 2w + 1.
// The tile visits only the key tiles the band reaches, so a windowed layer
// costs in proportion to its window.
struct KeyBand {
  int64_t q_pos = 0;
  int64_t before = -1;
  int64_t after = -1;
};

// A bias added to every score by the distance of its key from its query
// (MPNet's and T5's relative position bias, one head's): score(i, j) +=
// bias[clamp(j − (q_pos + i), −radius, radius) + radius], after the scale.
struct DistanceBias {
  const float* bias = nullptr;  // [2·radius + 1]; null: none
  int64_t radius = 0;
};

struct AttentionArgs {
  const float* q = nullptr;  // [n_q, d_head], row stride ldq
  const float* k = nullptr;  // [n_keys, d_head], row stride ldk
  // Optional: the same keys already in panels (PackKeyPanels of all n_keys);
  // k is then not read. A caller that runs several query tiles over one
  // sequence's keys packs them once instead of once a tile.
  const float* k_panels = nullptr;
  const float* v = nullptr;  // [n_keys, d_head], row stride ldv
  float* out = nullptr;      // [n_q, d_head], row stride ldo; may not overlap q, k, v
  int64_t ldq = 0, ldk = 0, ldv = 0, ldo = 0;
  int64_t n_q = 0;
  int64_t n_keys = 0;
  int64_t d_head = 0;
  float scale = 1.0f;  // usually 1/sqrt(d_head)
  KeyBand band = {};
  DistanceBias distance_bias = {};
};

// The keys as AttentionTile multiplies by them: kᵀ in panels of 32 keys
// (gemm.h's kGemmPanel), [ceil(n_keys / 32)][d_head][32], the last panel's
// columns past n_keys zero.
int64_t KeyPanelFloats(int64_t n_keys, int64_t d_head);
// k: [n_keys, d_head], row stride ldk; out: KeyPanelFloats(n_keys, d_head) floats.
void PackKeyPanels(const float* k, int64_t ldk, int64_t n_keys, int64_t d_head, float* out);

// Floats of scratch that AttentionTile needs for up to max_q queries.
int64_t AttentionScratchFloats(int64_t max_q, int64_t d_head);

// scratch: AttentionScratchFloats(n_q or more, d_head) floats, owned by the
// calling thread. The result depends only on the inputs' values and shapes,
// not on where they or the scratch sit in memory. Serial. The two products
// per key tile run on the register-tile kernel of gemm.h: the key tile is
// read from k_panels, or else packed into panels in scratch (d_head ·
// kAttentionKeyTile floats), the value rows are read in place. The scores'
// max, exp and sum are vector_math.h's (Max, ExpShiftedSum).
void AttentionTile(const AttentionArgs& a, float* scratch);

// The naive twin: full softmax over all keys, plain loops in double.
void AttentionNaive(const AttentionArgs& a);

}  // namespace phasor::kernels

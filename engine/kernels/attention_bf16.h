// Attention of one head over one sequence in bfloat16 (the bf16 precision of
// gemm_bf16.h), the twin of AttentionTile (attention.h):
//
//   out[i] = Σ_j bf16(p_ij)·bf16(v[j]) / Σ_j bf16(p_ij),  j < n_keys,
//   p_ij = exp(s_ij - m_ij),  s_ij = bf16(scale·q[i])·bf16(k[j]),
//
// with m_ij the running max of row i up to j's key tile (the online softmax:
// a tile's weights are rounded as they are made, and the earlier tiles' sums
// and products are rescaled alike in float32 when the max grows). Both
// products run on the bfloat16 panel kernel (float32 sums); the weights of v
// are exactly normalised, so each output lies in the range of its rounded
// values. The scores, the running max and sum, and the output stay float32.
//
// The keys and values are rounded and packed once per (sequence, head) by
// PackKeysBf16 / PackValuesBf16, so every query tile reads its operands as
// panels with no per-tile conversion or transposition:
//   keys   [ceil(n_keys/32)][ceil(d_head/2)][32][2]: k[j, c] at
//          (j/32)·32·d_even + (c/2)·64 + (j%32)·2 + c%2    (d_even = d_head rounded up to even)
//   values [ceil(d_head/32)][ceil(n_keys/2)][32][2]: v[j, c] at
//          (c/32)·32·n_even + (j/2)·64 + (c%32)·2 + j%2    (n_even = n_keys rounded up to even)
// zero past n_keys and d_head, so padding adds exact zeros.
//
// At int8 (the int8 precision of gemm_int8.h) the scores come from the int8
// product instead: s_ij = float(Σ_c q8[i, c]·k8[j, c])·(scale·sq[i]·sk[j]), each
// query row quantized per tile and each key once, symmetric with its own scale
// (sq, sk), as QuantizeRowInt8 does for a row of activations; the
// key panels are then gemm_int8.h's, each followed by its keys' sums and scales:
//   keys   per panel of 32 keys: [d4/4][32][4] int8 (k8[j, c] at
//          (c/4)·128 + (j%32)·4 + c%4), int32 sums [32], float scales [32]
//          (d4 = d_head rounded up to 4; zero past n_keys and d_head)
// The weights and values stay bfloat16.
#pragma once

#include <cstdint>

#include "engine/kernels/attention.h"

namespace phasor::kernels {

// bfloat16 values that the packed keys / values of n_keys keys take.
int64_t KeysBf16Values(int64_t n_keys, int64_t d_head);
int64_t ValuesBf16Values(int64_t n_keys, int64_t d_head);

// The same for the int8 keys, in bfloat16-sized (2-byte) units: a multiple of
// 32 (64 bytes) a panel, so the panels after a 64-byte aligned start are too.
int64_t KeysInt8Values(int64_t n_keys, int64_t d_head);

// k, v: [n_keys, d_head] row stride ld. out: KeysBf16Values / ValuesBf16Values
// / KeysInt8Values values in the layouts above (PackKeysInt8's out 64-byte
// aligned). Serial.
void PackKeysBf16(const float* k, int64_t ld, int64_t n_keys, int64_t d_head, uint16_t* out);
void PackValuesBf16(const float* v, int64_t ld, int64_t n_keys, int64_t d_head, uint16_t* out);
void PackKeysInt8(const float* k, int64_t ld, int64_t n_keys, int64_t d_head, uint16_t* out);

struct AttentionBf16Args {
  const float* q = nullptr;     // [n_q, d_head], row stride ldq
  const uint16_t* k = nullptr;  // PackKeysBf16 of n_keys keys, or PackKeysInt8's if int8_keys
  const uint16_t* v = nullptr;  // PackValuesBf16 of the same n_keys keys
  float* out = nullptr;         // [n_q, d_head], row stride ldo; may not overlap q
  int64_t ldq = 0, ldo = 0;
  int64_t n_q = 0;
  int64_t n_keys = 0;
  int64_t d_head = 0;
  float scale = 1.0f;      // usually 1/sqrt(d_head)
  bool int8_keys = false;  // the scores by the int8 product (k from PackKeysInt8)
  KeyBand band = {};       // as AttentionArgs's
  DistanceBias distance_bias = {};
};

// Floats of scratch that AttentionTileBf16 needs for up to max_q queries.
int64_t AttentionBf16ScratchFloats(int64_t max_q, int64_t d_head);

// As AttentionTile: keys >= n_keys are not in the packed operands, keys
// outside the band are masked; a query that sees no key gets out = 0. scratch:
// AttentionBf16ScratchFloats(n_q or more, d_head) floats, anywhere, owned by the calling thread.
// The result depends only on the inputs' values and shapes (and the target's bfloat16 product, as
// gemm_bf16.h says). Serial.
void AttentionTileBf16(const AttentionBf16Args& a, float* scratch);

}  // namespace phasor::kernels

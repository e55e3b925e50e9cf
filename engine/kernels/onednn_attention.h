// Attention's two products on the amx target (engine/cpu.h) through oneDNN's
// matmul, the twin of AttentionTileBf16 (attention_bf16.h) there:
//
//   bf16:  s = bf16(scale·q)·bf16(k)ᵀ          bfloat16 in, float32 sums
//   int8:  s = float(Σ_c q8·k8)·(scale·sq·sk)  unsigned q8 + 128 times int8 k8:
//          exact int32, dequantized as the int8 panel kernel does, so the
//          same bits as every other target's scores
//   both:  out = Σ_j bf16(p_ij)·bf16(v[j]) / Σ_j bf16(p_ij)  (float32 sums)
//
// with phasor's own online softmax in float32 between them, one key block at a
// time (a block's weights rounded as they are made, the earlier blocks'
// sums and products rescaled in float32 when the max grows).
//
// Shapes: every oneDNN call has one fixed shape per head width, whatever the
// sequence length, so that its primitives are made once and kept, and a row's
// bits never depend on the batch around it or on the thread:
//   scores   [kOnednnRows, d] · [d, kOnednnKeyBlock] -> [kOnednnRows, kOnednnKeyBlock]
//   weighted [kOnednnRows, kOnednnKeyBlock] · [kOnednnKeyBlock, d_head] -> [kOnednnRows, d_head]
// (d: d_head at bf16, d_head rounded up to 4 at int8). A query tile runs in
// calls of kOnednnRows rows, its last rows zero, or when it has more than
// 3·kOnednnRows queries in one call of kOnednnTileRows (which one depends on
// the tile's query count alone); a sequence's keys and values
// are cut into blocks of kOnednnKeyBlock keys, the last one padded with zero
// keys and values, whose scores are never read and whose weights are 0.
// (oneDNN's runtime dimensions would spare the padding, but oneDNN 2.6 runs a
// matmul with one only on its gemm:jit kernels, never on brgemm's (AMX's),
// and a runtime-sized key operand cannot take format_tag::any.)
//
// The blocks are laid out once per layer call (PackBlock), per (sequence, kv
// head), in the layouts oneDNN picks for this CPU (AMX tiles' on Sapphire
// Rapids, AVX-512's elsewhere). Every call runs on the calling thread alone
// (oneDNN's OpenMP team is never started), with per-thread scratch made on a
// thread's first call of a head width: nothing is allocated per call after it.
#pragma once

#include <cstdint>

#include "engine/kernels/attention_bf16.h"
#include "engine/kernels/onednn_matmul.h"

namespace phasor::kernels {

// Keys (and values) of one oneDNN block.
inline constexpr int64_t kOnednnKeyBlock = 128;
// Queries of a call when a tile has more than 3·kOnednnRows of them (one
// call each product for the whole tile: fewer, larger calls).
inline constexpr int64_t kOnednnTileRows = 4 * kOnednnRows;

// Whether attention at bf16 and int8 takes the oneDNN route now: the amx
// target is chosen and this build has oneDNN.
bool OnednnAttentionActive();

// Bytes of one block of keys and values for a head of d_head columns, in
// oneDNN's layouts (int8: and the keys' sums and scales), a multiple of 64.
// Makes the primitives on first use. Throws Error without oneDNN.
int64_t OnednnAttentionBlockBytes(int64_t d_head, bool int8_keys);

// Blocks a sequence of n_keys keys takes.
inline int64_t OnednnKeyBlocks(int64_t n_keys) {
  return (n_keys + kOnednnKeyBlock - 1) / kOnednnKeyBlock;
}

// k, v: [n, d_head] row stride ld, 0 < n <= kOnednnKeyBlock: one block's keys
// and values, rounded to bfloat16 (int8: keys quantized per key as
// QuantizeRowInt8 does) and laid out into out (OnednnAttentionBlockBytes, 64-byte
// aligned). Serial.
void PackOnednnBlock(const float* k, const float* v, int64_t ld, int64_t n, int64_t d_head,
                     bool int8_keys, uint8_t* out);

// The scores of `rows` queries (kOnednnRows or kOnednnTileRows) against one
// packed block, as the tile computes them: q [rows, d] dense, bfloat16 values
// (bf16(scale·q)) or with int8 keys the bytes q8 + 128 with q_scales [rows]
// (sq·scale); scores: [rows, kOnednnKeyBlock] floats (those of keys past the
// block's own are not meaningful). Serial.
void OnednnScores(int64_t rows, const void* q, const float* q_scales, const uint8_t* block,
                  int64_t d_head, bool int8_keys, float* scores);

// out [rows, d_head] (dense) = p [rows, kOnednnKeyBlock] (dense bfloat16
// values) · the block's values; rows as OnednnScores's. Serial.
void OnednnWeighted(int64_t rows, const uint16_t* p, const uint8_t* block, int64_t d_head,
                    bool int8_keys, float* out);

// Floats of scratch that AttentionTileOnednn needs for up to max_q queries.
int64_t AttentionOnednnScratchFloats(int64_t max_q, int64_t d_head);

// As AttentionTileBf16, with a.k and a.v unused: the keys and values are
// blocks, OnednnKeyBlocks(a.n_keys) of them one after another from blocks
// (PackOnednnBlock of keys [i·kOnednnKeyBlock, ..)). scratch:
// AttentionOnednnScratchFloats(n_q or more, d_head) floats, owned by the
// calling thread. The result depends only on the inputs' values and shapes.
// Serial. Throws Error without oneDNN.
void AttentionTileOnednn(const AttentionBf16Args& a, const uint8_t* blocks, float* scratch);

}  // namespace phasor::kernels

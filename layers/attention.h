// Multi-head self-attention, as torch.nn.MultiheadAttention(batch_first) in
// eval mode with a key padding mask, and the parts later encoders add
// (grouped-query attention, a head width of its own, per-head q/k norms, a
// causal or windowed mask, another scale):
//
//   q | k | v = x·W_inᵀ + b_in     (in_proj rows: q of n_heads heads, then k
//                                    and v of n_kv_heads heads, d_head each)
//   q_h, k_g = norm(q_h), norm(k_g) (qk_norm: RMSNorm over each head), then
//              rotated (rotation)
//   head h reads kv head g = h / (n_heads / n_kv_heads):
//     o_h = softmax(scale · q_h k_gᵀ, keys j >= valid_len and outside the
//           band masked) v_g
//   out = concat_h(o_h)·W_outᵀ + b_out
//
// Attention runs per (sequence, head, tile of kQueryTile queries) across
// threads, each tile with an online softmax over key tiles (see
// engine/kernels/attention.h), so no [seq, seq] score matrix is ever made:
// memory O(tokens · d_model). A band (causal, a window) visits only the key
// tiles it reaches. The heads of one kv head run one after another, so its
// keys, stored once, stay in cache. The projections use weights packed at load
// at the options' precision (layers/linear.h); at bf16 the attention products
// are bfloat16, at int8 its scores are int8 products and the weighted sum of
// values bfloat16 (kMinBf16Keys); on the amx target both products run through
// oneDNN's matmul (engine/kernels/onednn_attention.h). The output projection can end in a fused
// residual add and LayerNorm (ResidualNorm). Results are bit-identical for any
// thread count, and a sequence's are the same alone as in any batch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/aligned_allocator.h"
#include "engine/weights.h"
#include "layers/layer_norm.h"
#include "layers/linear.h"
#include "layers/precision.h"
#include "layers/qk_rotation.h"
#include "layers/spans.h"

namespace phasor {

// Which keys a query sees, by position in its sequence: key j is seen by the
// query at i iff i - before <= j <= i + after (a negative bound: no limit).
// Masks combine with key padding.
struct KeyWindow {
  int64_t before = -1;
  int64_t after = -1;
  static KeyWindow Full() { return {}; }
  static KeyWindow Causal() { return {-1, 0}; }
};

// A norm of each head's q and of each head's k (Qwen3, Gemma 3): tensors
// q_norm.weight and k_norm.weight [d_head], applied after the in-projection
// and before the rotation.
struct QkNormOptions {
  bool on = false;
  NormKind kind = NormKind::kRms;
  float eps = 1e-6f;
  float weight_offset = 0.0f;  // Gemma's (1 + w)
};

struct AttentionOptions {
  int64_t d_model = 0;
  int64_t n_heads = 0;  // divides d_model unless d_head is given
  // Applied to q and k after the in-projection (bias included), before the
  // scores; null: none. Must outlive the layer.
  const QkRotation* rotation = nullptr;
  // Of the two projections; bf16 also takes the attention products in
  // bfloat16, int8 its scores in int8 and the rest in bfloat16 (kMinBf16Keys).
  Precision precision = Precision::kFp32;
  // Whether in_proj and out_proj carry a bias (in_proj_bias, out_proj.bias);
  // false: products without one (nn.Linear(bias=False)).
  bool in_bias = true;
  bool out_bias = true;
  // Heads of k and v (grouped-query attention); 0: n_heads. Divides n_heads.
  int64_t n_kv_heads = 0;
  // Width of a head; 0: d_model / n_heads.
  int64_t d_head = 0;
  KeyWindow window = {};
  float scale = 0.0f;  // of the scores; 0: 1/sqrt(d_head)
  QkNormOptions qk_norm = {};
  // A bias added to head h's scores by distance (kernels::DistanceBias):
  // distance_bias [n_heads, 2·bias_radius + 1], row h for head h; null: none.
  // Must outlive the layer.
  const float* distance_bias = nullptr;
  int64_t bias_radius = 0;

  int64_t kv_heads() const { return n_kv_heads > 0 ? n_kv_heads : n_heads; }
  int64_t head_width() const { return d_head > 0 ? d_head : d_model / n_heads; }
  // Columns of q | k | v, and of the heads' outputs (out_proj's input).
  int64_t qkv_width() const { return (n_heads + 2 * kv_heads()) * head_width(); }
  int64_t heads_width() const { return n_heads * head_width(); }
};

// Scratch for MultiHeadSelfAttention::Forward, sized once for up to max_tokens
// tokens (batch · seq) and `threads` threads, and reused by every call and by
// every layer of the same shape and precision (mask and rotation aside). A
// token takes 6·d_model floats (with n_kv_heads < n_heads or another d_head:
// qkv_width + heads_width + 2·kv width), 2·d_model of them its keys and values (and room for the
// key panels' padding: 2·d_model floats more per 8 tokens); at bf16 and int8
// those are packed in bfloat16 instead, in 1.5·d_model floats' room for heads
// a multiple of 32 wide, up to about 2·d_model for other heads of 16 or more,
// more for narrower ones. Per thread: a query tile's scratch and kOutRows
// output rows. One workspace per concurrent caller.
class AttentionWorkspace {
 public:
  AttentionWorkspace() = default;
  // threads: how many threads may work on one call (< 1: NumThreads() now); a
  // call uses min(NumThreads(), threads). Throws Error for bad sizes or if the
  // memory cannot be allocated.
  AttentionWorkspace(int64_t max_tokens, const AttentionOptions& options, int threads = 0);

  // Bytes of the keys and values of max_tokens tokens (saturating at
  // UINT64_MAX): the part of the workspace that depends on the precision (and
  // at bf16 and int8 on the target chosen now: oneDNN's blocks on amx).
  static uint64_t KeyValueBytes(int64_t max_tokens, const AttentionOptions& options);
  // Bytes a workspace for max_tokens tokens holds for them (saturating): q, k,
  // v, head outputs, the rounded or quantized rows, keys and values. The
  // per-thread tiles, a few MiB at most, are left out.
  static uint64_t Bytes(int64_t max_tokens, const AttentionOptions& options);

  int64_t max_tokens() const { return max_tokens_; }
  int threads() const { return threads_; }

  // Rows of a thread's output tile: a task of the output projection with an
  // epilogue, at most a MultiHeadSelfAttention::ProjectBlock.
  static constexpr int64_t kOutRows = 32;

 private:
  friend class MultiHeadSelfAttention;
  float* TileScratch(int slot);  // 64-byte aligned, per thread
  float* OutScratch(int slot) { return out_tiles_.data() + slot * kOutRows * options_.d_model; }

  int64_t max_tokens_ = 0;
  AttentionOptions options_;
  int threads_ = 0;
  int64_t tile_floats_ = 0;  // per slot, a multiple of 16 floats (64 bytes)
  std::vector<float> qkv_;   // [max_tokens, qkv_width]: q | k | v of every token
  std::vector<float> kv_;    // fp32: [KeyValueRows, 2·kv width]: keys, values by kv head
  // bf16 and int8: keys and values packed by head (kernels/attention_bf16.h)
  std::vector<uint16_t, AlignedAllocator<uint16_t>> kv_bf16_;
  // bf16 and int8 on the amx target: keys and values in oneDNN's blocks
  // (kernels/onednn_attention.h) instead. The one of the two that the target
  // chosen at construction uses is sized then (oneDNN's for one sequence of
  // max_tokens); either grows (never shrinks) on a call that needs more: a
  // batch of short sequences (their last blocks padded), another target.
  // onednn_: whether this call runs on oneDNN; block_bytes_: a block's bytes.
  std::vector<uint8_t, AlignedAllocator<uint8_t>> kv_onednn_;
  bool onednn_ = false;
  int64_t block_bytes_ = 0;
  std::vector<float> heads_;      // [max_tokens, heads_width]: o_h of every head, concatenated
  std::vector<float> tiles_;      // [threads, tile_floats] (+ alignment slack)
  std::vector<float> out_tiles_;  // [threads, kOutRows, d_model]: out_proj rows before the epilogue
  // bf16 and int8: the rows of a projection's input, rounded or quantized
  // (Linear::ScratchBytes): for max_tokens rows, and per thread for kOutRows.
  std::vector<uint8_t> rows_;
  std::vector<uint8_t> out_rows_;
  int64_t out_rows_bytes_ = 0;  // per slot
  // Per call, grown (never shrunk) to the batch: the padded form's spans
  // [2, batch], each sequence's first query tile [batch + 1] and, at bf16 and
  // int8, where its packed keys and values start [batch].
  std::vector<int64_t> spans_;
  std::vector<int64_t> tile_start_;
  std::vector<int64_t> kv_start_;
};

class MultiHeadSelfAttention {
 public:
  // Tokens per query tile (one task of the parallel loop).
  static constexpr int64_t kQueryTile = 128;
  // At bf16 and int8, a sequence's attention products (q·kᵀ and weights·v)
  // are bfloat16 (q·kᵀ int8 at int8; kernels/attention_bf16.h) when it has at least this many
  // valid keys; a shorter one, whose products are a small share of its
  // layer, keeps them float32 and needs no packed copy of its keys.
  static constexpr int64_t kMinBf16Keys = 32;
  // At fp32, a sequence with at least this many valid keys has them packed
  // into the score product's panels once (kernels::PackKeyPanels), for all its
  // query tiles; a shorter one, with a single query tile or few keys, has them
  // packed inside that tile. The panels round the keys up to a multiple of 32,
  // at most 31 more for every kQueryTile keys.
  static constexpr int64_t kMinPanelKeys = kQueryTile;

  // Requires, under prefix (the module's, e.g. "layers.0.self_attn."):
  //   in_proj_weight [qkv_width, d_model], in_proj_bias [qkv_width],
  //   out_proj.weight [d_model, heads_width], out_proj.bias [d_model]
  //   (3·d_model and d_model with n_heads heads of d_model / n_heads), and
  //   with qk_norm q_norm.weight, k_norm.weight [d_head].
  // weights must outlive this object. Throws Error naming the tensor if one is
  // missing or misshapen, or for inconsistent sizes (n_heads not dividing
  // d_model without a d_head, n_kv_heads not dividing n_heads).
  MultiHeadSelfAttention(const Weights& weights, const std::string& prefix,
                         const AttentionOptions& options);

  // x, out: [batch·seq, d_model] row-major, sequence b in rows b·seq ..
  // (shape: batch, seq, lengths); out may equal x. lengths: [batch] valid
  // tokens per sequence (null: all seq); keys at positions >= lengths[b] are
  // masked out. Queries at padded positions
  // are computed like the others (their rows are well defined but meaningless;
  // the caller zeroes them if it needs to). A sequence of length 0 attends to
  // nothing: its head outputs are 0, so its rows are out_proj.bias.
  // Throws Error if a length is outside [0, seq] or ws is too small or for
  // other sizes.
  void Forward(const float* x, const Padded& shape, float* out, AttentionWorkspace& ws) const;

  // Forward's two parts, for a caller that fuses the output projection into a
  // parallel pass of its own (EncoderLayer: the projection, its norm and the
  // feed-forward of a block of rows in one task). Attend checks the call as
  // Forward does and leaves every row's head outputs in ws (rows batch·seq, or
  // `rows` of them for sequences at any rows, layers/spans.h: e.g. packed back
  // to back, each sequence attending to its own keys only, its outputs the same
  // bits wherever it sits and whatever else is in the batch; rows outside
  // every span attend to nothing, as a sequence of length 0 above; Error for
  // spans out of order or outside the rows);
  // ProjectBlock then projects those of rows [r0, r0 + n), n <=
  // AttentionWorkspace::kOutRows, in the output tile of `slot` (< ws's
  // threads) and returns it: [n, d_model] = heads·W_outᵀ + b_out, serial.
  void Attend(const float* x, const Padded& shape, AttentionWorkspace& ws) const;
  void Attend(const float* x, int64_t rows, const Spans& spans, AttentionWorkspace& ws) const;
  float* ProjectBlock(AttentionWorkspace& ws, int64_t r0, int64_t n, int slot) const;

  const AttentionOptions& options() const { return options_; }
  int64_t d_head() const { return options_.head_width(); }
  int64_t packed_bytes() const { return in_proj_.bytes() + out_proj_.bytes(); }

 private:
  // The steps of Attend over spans, in order.
  void CheckCall(int64_t tokens, const Spans& spans, const AttentionWorkspace& ws) const;
  // Whether a sequence of this many keys runs on packed bfloat16 keys and values.
  bool Packed(int64_t keys) const;
  // Whether packed keys are int8 (the int8 precision: scores by the int8
  // product, kernels/attention_bf16.h) rather than bfloat16.
  bool Int8Keys() const { return options_.precision == Precision::kInt8; }
  // Whether a sequence of this many keys has them packed into panels at fp32.
  bool PanelKeys(int64_t keys) const;
  // The room of one head's keys (KeyValues), and of its keys and values
  // (HeadValues), in ws.kv_ (floats) or ws.kv_bf16_ (bfloat16 values).
  // HeadValues is 0 for a short sequence at bf16 or int8: it is read in place.
  int64_t KeyValues(int64_t keys) const;
  int64_t HeadValues(int64_t keys) const;
  // On the amx target: the bytes of one head's keys and values in oneDNN's
  // blocks (0 for a sequence read in place), block_bytes a block's.
  int64_t HeadBlockBytes(int64_t keys, int64_t block_bytes) const;
  // Each sequence's first query tile and packed keys' offset in ws.
  void PlanSequences(const Spans& spans, AttentionWorkspace& ws) const;
  // Keys and values of each (sequence, head) out of ws's q | k | v rows.
  void GatherKeysValues(const Spans& spans, AttentionWorkspace& ws) const;
  // The per-head norms of q and k (qk_norm), in place in ws's q | k | v rows.
  void NormQk(int64_t tokens, AttentionWorkspace& ws) const;
  // Every query tile's heads into ws's head rows; rows outside the spans 0.
  void AttendTiles(int64_t tokens, const Spans& spans, AttentionWorkspace& ws) const;
  // The output projection of ws's head rows.
  void Project(int64_t tokens, float* out, AttentionWorkspace& ws) const;

  AttentionOptions options_;
  Linear in_proj_;   // in_proj_weight [qkv_width, d_model] + in_proj_bias [qkv_width]
  Linear out_proj_;  // out_proj.weight [d_model, heads_width] + out_proj.bias [d_model]
  std::optional<LayerNorm> q_norm_, k_norm_;  // [d_head] each (qk_norm)
};

}  // namespace phasor

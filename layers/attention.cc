#include "layers/attention.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <new>

#include "engine/error.h"
#include "engine/kernels/attention.h"
#include "engine/kernels/attention_bf16.h"
#include "engine/kernels/gemm.h"
#include "engine/kernels/onednn_attention.h"
#include "engine/memory_limit.h"
#include "engine/parallel.h"
#include "engine/size_limits.h"

namespace phasor {
namespace {

constexpr int64_t kAlignFloats = 16;  // 64 bytes

const AttentionOptions& Checked(const AttentionOptions& options, const std::string& where) {
  const int64_t n_heads = options.n_heads, kv = options.kv_heads();
  if (options.d_model < 1 || n_heads < 1 ||
      (options.d_head == 0 && options.d_model % n_heads != 0)) {
    throw Error(where + ": n_heads (" + std::to_string(n_heads) +
                ") must be positive and divide d_model (" + std::to_string(options.d_model) + ")");
  }
  if (options.d_head < 0 || options.d_head > (int64_t{1} << 16)) {
    throw Error(where + ": head width " + std::to_string(options.d_head) + " is out of range");
  }
  if (kv < 1 || n_heads % kv != 0) {
    throw Error(where + ": n_kv_heads (" + std::to_string(kv) + ") must divide n_heads (" +
                std::to_string(n_heads) + ")");
  }
  if (!(options.scale >= 0.0f) || !std::isfinite(options.scale)) {
    throw Error(where + ": the scale of the scores must be finite and >= 0");
  }
  return options;
}

// Resizes v to rows · cols values (floats, bfloat16 values or bytes), or
// throws Error naming what.
template <class Vector>
void Allocate(Vector& v, int64_t rows, int64_t cols, const char* what) {
  using T = typename Vector::value_type;
  const char* unit = sizeof(T) == 1 ? " bytes" : sizeof(T) == 2 ? " bfloat16 values" : " floats";
  if (rows < 0 || cols < 0 || (cols > 0 && rows > kMaxBufferFloats / cols)) {
    throw Error(std::string("attention workspace: ") + what + " of " + std::to_string(rows) +
                " x " + std::to_string(cols) + unit + " is too large");
  }
  try {
    v.assign(static_cast<size_t>(rows * cols), T{});
  } catch (const std::bad_alloc&) {
    throw Error(std::string("attention workspace: cannot allocate ") + what + " of " +
                std::to_string(rows) + " x " + std::to_string(cols) + unit);
  }
}

// bf16 and int8: the packed keys and values of the sequences of kMinBf16Keys
// keys or more, per 32 tokens (bfloat16 values). Per (sequence, head) they
// take at most (seq + 31)·d_even + d_pad·(seq + 1) values, with d_even, d_pad:
// d_head rounded up to 2 and 32; and batch <= tokens / 32.
// At int8 the keys are int8 panels instead (KeysInt8Values: P values per 32
// keys), at most (seq + 31) / 32 · P a sequence, i.e. 2·P per 32 tokens.
int64_t PackedValuesPer32Tokens(const AttentionOptions& options) {
  const int64_t d_head = options.head_width();
  const int64_t d_even = d_head + (d_head & 1), d_pad = (d_head + 31) / 32 * 32;
  int64_t keys = 63 * d_even;
  if (options.precision == Precision::kInt8) {
    keys = std::max(keys, 2 * kernels::KeysInt8Values(32, d_head));
  }
  return options.kv_heads() * (keys + d_pad * 32 + d_pad);
}

// Rows of [2·kv width] floats (kv width: kv_heads · d_head) that hold the keys
// and values of max_tokens tokens by kv head at fp32: one a token, and 16 more
// for every kMinPanelKeys tokens, which bound the 31 key rows a sequence's key
// panels may add (MultiHeadSelfAttention::KeyValues).
uint64_t KeyValueRows(uint64_t max_tokens) {
  static_assert(MultiHeadSelfAttention::kMinPanelKeys >= 1);
  return max_tokens + max_tokens / MultiHeadSelfAttention::kMinPanelKeys * 16;
}

// Columns of the keys (or the values) of a token: kv_heads · d_head.
int64_t KvWidth(const AttentionOptions& options) {
  return options.kv_heads() * options.head_width();
}

// Bytes of the rounded or quantized rows of a projection's input, for rows of
// either product (in_proj: d_model wide, out_proj: heads_width).
int64_t RowsBytes(const AttentionOptions& options, int64_t rows) {
  return std::max(Linear::ScratchBytes(options.precision, rows, options.d_model),
                  Linear::ScratchBytes(options.precision, rows, options.heads_width()));
}

}  // namespace

uint64_t AttentionWorkspace::KeyValueBytes(int64_t max_tokens, const AttentionOptions& options) {
  const auto tokens = static_cast<uint64_t>(std::max<int64_t>(max_tokens, 0));
  if (options.precision == Precision::kFp32) {
    return SaturatingMul(KeyValueRows(tokens),
                         2 * static_cast<uint64_t>(KvWidth(options)) * sizeof(float));
  }
  if (kernels::OnednnAttentionActive()) {  // oneDNN's blocks of keys and values (amx)
    const bool int8 = options.precision == Precision::kInt8;
    const auto bytes = static_cast<uint64_t>(
        options.kv_heads() * kernels::OnednnAttentionBlockBytes(options.head_width(), int8));
    return SaturatingMul((tokens + kernels::kOnednnKeyBlock - 1) / kernels::kOnednnKeyBlock, bytes);
  }
  return SaturatingMul((tokens + 31) / 32,
                       static_cast<uint64_t>(PackedValuesPer32Tokens(options)) * sizeof(uint16_t));
}

uint64_t AttentionWorkspace::Bytes(int64_t max_tokens, const AttentionOptions& options) {
  const auto tokens = static_cast<uint64_t>(std::max<int64_t>(max_tokens, 0));
  const auto width = static_cast<uint64_t>(options.qkv_width() + options.heads_width());
  const uint64_t rows = SaturatingMul(tokens, width * sizeof(float));  // qkv_, heads_
  // Past 2^40 tokens rows saturates anyway; the clamp keeps this product in range.
  const int64_t scratch_rows = static_cast<int64_t>(std::min<uint64_t>(tokens, uint64_t{1} << 40));
  const auto rounded = static_cast<uint64_t>(RowsBytes(options, scratch_rows));
  const uint64_t kv = KeyValueBytes(max_tokens, options);
  if (rows > UINT64_MAX - rounded - kv) return UINT64_MAX;
  return rows + rounded + kv;
}

AttentionWorkspace::AttentionWorkspace(int64_t max_tokens, const AttentionOptions& options,
                                       int threads)
    : max_tokens_(max_tokens),
      options_(Checked(options, "attention workspace")),
      threads_(threads > 0 ? threads : std::max(NumThreads(), 1)) {
  const int64_t d_head = options.head_width();
  constexpr int64_t q_tile = MultiHeadSelfAttention::kQueryTile;
  int64_t per_tile = kernels::AttentionScratchFloats(q_tile, d_head);
  Allocate(qkv_, max_tokens, options.qkv_width(), "q, k, v");
  if (options.precision == Precision::kFp32) {
    Allocate(kv_, static_cast<int64_t>(KeyValueRows(std::max<int64_t>(max_tokens, 0))),
             2 * KvWidth(options), "keys and values by head");
  } else {
    per_tile = std::max({per_tile, kernels::AttentionBf16ScratchFloats(q_tile, d_head),
                         kernels::AttentionOnednnScratchFloats(q_tile, d_head)});
    if (kernels::OnednnAttentionActive()) {
      const bool int8 = options.precision == Precision::kInt8;
      Allocate(kv_onednn_, options.kv_heads() * kernels::OnednnKeyBlocks(max_tokens),
               kernels::OnednnAttentionBlockBytes(d_head, int8), "oneDNN's keys and values");
    } else {
      Allocate(kv_bf16_, (max_tokens + 31) / 32, PackedValuesPer32Tokens(options),
               "packed keys and values");
    }
  }
  tile_floats_ = (per_tile + kAlignFloats - 1) / kAlignFloats * kAlignFloats;
  Allocate(heads_, max_tokens, options.heads_width(), "head outputs");
  Allocate(tiles_, threads_, tile_floats_, "tile scratch");
  tiles_.resize(tiles_.size() + kAlignFloats);  // slack to align the first slot
  Allocate(out_tiles_, threads_, kOutRows * options.d_model, "output tiles");
  const int64_t row_bytes = RowsBytes(options, max_tokens);
  out_rows_bytes_ = Linear::ScratchBytes(options.precision, kOutRows, options.heads_width());
  Allocate(rows_, 1, row_bytes, "rounded or quantized rows");
  Allocate(out_rows_, threads_, out_rows_bytes_, "rounded or quantized output rows");
}

float* AttentionWorkspace::TileScratch(int slot) {
  const uintptr_t misalignment = reinterpret_cast<uintptr_t>(tiles_.data()) % 64;
  const int64_t skip = misalignment == 0 ? 0 : (64 - misalignment) / sizeof(float);
  return tiles_.data() + skip + slot * tile_floats_;
}

MultiHeadSelfAttention::MultiHeadSelfAttention(const Weights& weights, const std::string& prefix,
                                               const AttentionOptions& options)
    : options_(Checked(options, "attention '" + prefix + "'")),
      in_proj_(weights, prefix + "in_proj_weight", options.in_bias ? prefix + "in_proj_bias" : "",
               options.qkv_width(), options.d_model, options.precision),
      out_proj_(weights, prefix + "out_proj.weight",
                options.out_bias ? prefix + "out_proj.bias" : "", options.d_model,
                options.heads_width(), options.precision) {
  const QkNormOptions& n = options.qk_norm;
  if (n.on) {
    const LayerNormOptions norm{options.head_width(), n.eps, n.kind, false, n.weight_offset};
    q_norm_.emplace(weights, prefix + "q_norm.", norm);
    k_norm_.emplace(weights, prefix + "k_norm.", norm);
  }
}

void MultiHeadSelfAttention::Forward(const float* x, const Padded& shape, float* out,
                                     AttentionWorkspace& ws) const {
  Attend(x, shape, ws);
  const int64_t tokens = shape.batch * shape.seq;
  if (tokens > 0) Project(tokens, out, ws);
}

void MultiHeadSelfAttention::Attend(const float* x, const Padded& shape,
                                    AttentionWorkspace& ws) const {
  const int64_t batch = shape.batch, seq = shape.seq;
  const int64_t* lengths = shape.lengths;
  if (batch < 0 || seq < 0 || (seq > 0 && batch > kMaxBufferFloats / seq)) {
    throw Error("attention: bad batch " + std::to_string(batch) + " x seq " + std::to_string(seq));
  }
  for (int64_t b = 0; lengths != nullptr && b < batch; ++b) {
    if (lengths[b] < 0 || lengths[b] > seq) {
      throw Error("attention: length " + std::to_string(lengths[b]) + " of sequence " +
                  std::to_string(b) + " is outside [0, " + std::to_string(seq) + "]");
    }
  }
  // Sequence b at rows b·seq .., of which lengths[b] are keys.
  if (static_cast<int64_t>(ws.spans_.size()) < 2 * batch) ws.spans_.resize(2 * batch);
  int64_t* start = ws.spans_.data();
  int64_t* length = start + batch;
  for (int64_t b = 0; b < batch; ++b) {
    start[b] = b * seq;
    length[b] = seq;
  }
  Attend(x, batch * seq, Spans{start, length, batch, lengths}, ws);
}

void MultiHeadSelfAttention::CheckCall(int64_t tokens, const Spans& spans,
                                       const AttentionWorkspace& ws) const {
  const int64_t d_model = options_.d_model, n_heads = options_.n_heads;
  if (tokens < 0 || tokens > kMaxBufferFloats) {
    throw Error("attention: bad row count " + std::to_string(tokens));
  }
  if (ws.options_.d_model != d_model || ws.options_.n_heads != n_heads ||
      ws.options_.kv_heads() != options_.kv_heads() ||
      ws.options_.head_width() != options_.head_width() || tokens > ws.max_tokens_) {
    throw Error("attention: workspace holds " + std::to_string(ws.max_tokens_) +
                " tokens of d_model " + std::to_string(ws.options_.d_model) + " with " +
                std::to_string(ws.options_.n_heads) + " heads, needs " + std::to_string(tokens) +
                " of d_model " + std::to_string(d_model) + " with " + std::to_string(n_heads));
  }
  if (ws.options_.precision != options_.precision) {
    throw Error(std::string("attention: workspace made for precision ") +
                ToString(ws.options_.precision) + ", the layer is " + ToString(options_.precision));
  }
  CheckSpans(spans, tokens, "attention");
}

bool MultiHeadSelfAttention::Packed(int64_t keys) const {
  return options_.precision != Precision::kFp32 && keys >= kMinBf16Keys;
}

bool MultiHeadSelfAttention::PanelKeys(int64_t keys) const {
  return options_.precision == Precision::kFp32 && keys >= kMinPanelKeys;
}

int64_t MultiHeadSelfAttention::KeyValues(int64_t keys) const {
  const int64_t d_head = this->d_head();
  if (Packed(keys)) {
    return Int8Keys() ? kernels::KeysInt8Values(keys, d_head)
                      : kernels::KeysBf16Values(keys, d_head);
  }
  return PanelKeys(keys) ? kernels::KeyPanelFloats(keys, d_head) : keys * d_head;
}

int64_t MultiHeadSelfAttention::HeadValues(int64_t keys) const {
  if (Packed(keys)) return KeyValues(keys) + kernels::ValuesBf16Values(keys, d_head());
  return options_.precision == Precision::kFp32 ? KeyValues(keys) + keys * d_head() : 0;
}

int64_t MultiHeadSelfAttention::HeadBlockBytes(int64_t keys, int64_t block_bytes) const {
  return Packed(keys) ? kernels::OnednnKeyBlocks(keys) * block_bytes : 0;
}

void MultiHeadSelfAttention::PlanSequences(const Spans& spans, AttentionWorkspace& ws) const {
  // Per sequence: its first query tile among all, and where its keys and
  // values start in ws.kv_ (fp32), ws.kv_bf16_ or (amx) ws.kv_onednn_, in
  // bytes there. Serial: a few operations a sequence.
  const int64_t batch = spans.batch;
  ws.onednn_ = options_.precision != Precision::kFp32 && kernels::OnednnAttentionActive();
  ws.block_bytes_ = ws.onednn_ ? kernels::OnednnAttentionBlockBytes(d_head(), Int8Keys()) : 0;
  if (static_cast<int64_t>(ws.tile_start_.size()) < batch + 1) ws.tile_start_.resize(batch + 1);
  if (static_cast<int64_t>(ws.kv_start_.size()) < batch) ws.kv_start_.resize(batch);
  int64_t* tile_start = ws.tile_start_.data();  // [batch + 1]
  int64_t* kv_start = ws.kv_start_.data();      // [batch]
  tile_start[0] = 0;
  int64_t kv_values = 0;
  for (int64_t b = 0; b < batch; ++b) {
    tile_start[b + 1] = tile_start[b] + (spans.length[b] + kQueryTile - 1) / kQueryTile;
    kv_start[b] = kv_values;
    kv_values += options_.kv_heads() * (ws.onednn_ ? HeadBlockBytes(spans.Keys(b), ws.block_bytes_)
                                                   : HeadValues(spans.Keys(b)));
  }
  // Made while another target was chosen, or (amx) short sequences' padding:
  // the room grows once.
  if (ws.onednn_ && kv_values > static_cast<int64_t>(ws.kv_onednn_.size())) {
    Allocate(ws.kv_onednn_, 1, kv_values, "oneDNN's keys and values");
  }
  const bool bf16 = !ws.onednn_ && options_.precision != Precision::kFp32;
  if (bf16 && kv_values > static_cast<int64_t>(ws.kv_bf16_.size())) {
    Allocate(ws.kv_bf16_, 1, kv_values, "packed keys and values");
  }
  assert(options_.precision != Precision::kFp32 ||
         kv_values <= static_cast<int64_t>(ws.kv_.size()));
}

// Keys and values of each (sequence, head) copied out contiguous, [n, d_head]
// each: a key tile is then 512 rows of 256 bytes (d_head 64) side by side
// instead of one row per 3·d_model floats, which on long sequences costs a TLB
// miss per key row, for every query tile. From kMinPanelKeys keys, the keys
// are written as the score product's panels, once for all query tiles. At
// bf16 and int8 (int8: measured faster than float32 attention, with no change
// in its accuracy bounds) keys and values are rounded and packed into panels
// instead (kernels/attention_bf16.h), for sequences of kMinBf16Keys keys or
// more; shorter ones are read in place by the float32 kernel.
//   fp32: [n_heads, keys (KeyValues) | values [keys, d_head]] per sequence
//   from kv_start[b] of ws.kv_ (KeyValueRows bounds the total).
//   bf16 and int8: [n_heads, keys | values] per packed sequence from
//   kv_start[b] of ws.kv_bf16_, 64-byte aligned (each part a multiple of 32
//   values).
void MultiHeadSelfAttention::GatherKeysValues(const Spans& spans, AttentionWorkspace& ws) const {
  const int64_t kv_heads = options_.kv_heads(), d_head = this->d_head();
  const int64_t ld_qkv = options_.qkv_width(), kv_width = kv_heads * d_head;
  const bool reduced = options_.precision != Precision::kFp32;
  const float* qkv = ws.qkv_.data();  // [tokens, qkv_width]
  float* kv = ws.kv_.data();
  uint16_t* kv_bf16 = ws.kv_bf16_.data();
  const int64_t* kv_start = ws.kv_start_.data();
  ParallelTasks(spans.batch * kv_heads, ws.threads_, [&](int64_t t, int /*slot*/) {
    const int64_t b = t / kv_heads, g = t % kv_heads, n = spans.Keys(b);
    const float* k_in = qkv + spans.start[b] * ld_qkv + options_.heads_width() + g * d_head;
    const float* v_in = k_in + kv_width;                 // [n, d_head], row stride ld_qkv
    const int64_t at = kv_start[b] + g * HeadValues(n);  // this kv head's keys, then values
    if (ws.onednn_) {
      if (!Packed(n)) return;
      const int64_t bytes = ws.block_bytes_, ld = ld_qkv;
      uint8_t* blocks = ws.kv_onednn_.data() + kv_start[b] + g * HeadBlockBytes(n, bytes);
      for (int64_t j0 = 0, i = 0; j0 < n; j0 += kernels::kOnednnKeyBlock, ++i) {
        const int64_t m = std::min(kernels::kOnednnKeyBlock, n - j0);
        kernels::PackOnednnBlock(k_in + j0 * ld, v_in + j0 * ld, ld, m, d_head, Int8Keys(),
                                 blocks + i * bytes);
      }
      return;
    }
    if (reduced) {
      if (!Packed(n)) return;
      (Int8Keys() ? kernels::PackKeysInt8 : kernels::PackKeysBf16)(k_in, ld_qkv, n, d_head,
                                                                   kv_bf16 + at);
      kernels::PackValuesBf16(v_in, ld_qkv, n, d_head, kv_bf16 + at + KeyValues(n));
      return;
    }
    float* k_h = kv + at;             // panels, or [n, d_head]
    float* v_h = k_h + KeyValues(n);  // [n, d_head]
    if (PanelKeys(n)) {
      kernels::PackKeyPanels(k_in, ld_qkv, n, d_head, k_h);
    } else {
      for (int64_t j = 0; j < n; ++j) {
        std::copy(k_in + j * ld_qkv, k_in + j * ld_qkv + d_head, k_h + j * d_head);
      }
    }
    for (int64_t j = 0; j < n; ++j) {
      std::copy(v_in + j * ld_qkv, v_in + j * ld_qkv + d_head, v_h + j * d_head);
    }
  });
}

void MultiHeadSelfAttention::NormQk(int64_t tokens, AttentionWorkspace& ws) const {
  const int64_t ld = options_.qkv_width(), width = options_.heads_width();
  const int64_t kv_heads = options_.kv_heads();
  float* qkv = ws.qkv_.data();  // [tokens, qkv_width]
  constexpr int64_t kTokens = 64;
  ParallelTasks((tokens + kTokens - 1) / kTokens, ws.threads_, [&](int64_t t, int /*slot*/) {
    for (int64_t r = t * kTokens; r < std::min(tokens, (t + 1) * kTokens); ++r) {
      float* q = qkv + r * ld;  // [n_heads, d_head], then k: [kv_heads, d_head]
      q_norm_->Rows(q, nullptr, options_.n_heads, q);
      k_norm_->Rows(q + width, nullptr, kv_heads, q + width);
    }
  });
}

// One task per (sequence, head, query tile), the query tiles of a head together
// so its keys and values stay in cache. A task's result does not depend on the
// thread (slot) that runs it, nor on the other sequences; the slot only picks
// its scratch.
void MultiHeadSelfAttention::AttendTiles(int64_t tokens, const Spans& spans,
                                         AttentionWorkspace& ws) const {
  const int64_t n_heads = options_.n_heads, d_head = this->d_head();
  const int64_t group = n_heads / options_.kv_heads();  // q heads a kv head serves
  const int64_t batch = spans.batch, ld_qkv = options_.qkv_width();
  const int64_t width = options_.heads_width(), kv_width = options_.kv_heads() * d_head;
  const bool reduced = options_.precision != Precision::kFp32;
  const float* qkv = ws.qkv_.data();  // [tokens, qkv_width]
  const float* kv = ws.kv_.data();
  const uint16_t* kv_bf16 = ws.kv_bf16_.data();
  const int64_t* tile_start = ws.tile_start_.data();
  const int64_t* kv_start = ws.kv_start_.data();
  float* heads = ws.heads_.data();  // [tokens, heads_width]
  const float scale = options_.scale > 0.0f
                          ? options_.scale
                          : static_cast<float>(1.0 / std::sqrt(static_cast<double>(d_head)));
  ParallelTasks(tile_start[batch] * n_heads, ws.threads_, [&](int64_t t, int slot) {
    // Sequence b's tasks are t in [tile_start[b]·n_heads, tile_start[b + 1]·n_heads).
    const int64_t b =
        std::upper_bound(tile_start, tile_start + batch + 1, t / n_heads) - tile_start - 1;
    const int64_t q_tiles = tile_start[b + 1] - tile_start[b];
    const int64_t local = t - tile_start[b] * n_heads;
    const int64_t h = local / q_tiles, g = h / group;
    const int64_t q0 = local % q_tiles * kQueryTile;
    const int64_t n = spans.Keys(b);
    const float* seq_qkv = qkv + spans.start[b] * ld_qkv;  // [rows, qkv_width]
    // The query tile's shape, the same in either kernel's arguments.
    auto tile = [&](auto& a) {
      a.q = seq_qkv + q0 * ld_qkv + h * d_head;
      a.out = heads + (spans.start[b] + q0) * width + h * d_head;
      a.ldq = ld_qkv;
      a.ldo = width;
      a.n_q = std::min(kQueryTile, spans.length[b] - q0);
      a.n_keys = n;
      a.d_head = d_head;
      a.scale = scale;
      a.band = {q0, options_.window.before, options_.window.after};
      if (options_.distance_bias != nullptr) {
        const int64_t r = options_.bias_radius;
        a.distance_bias = {options_.distance_bias + h * (2 * r + 1), r};
      }
    };
    if (Packed(n)) {  // bfloat16 or int8 keys; amx: oneDNN's blocks from kv_start[b]
      kernels::AttentionBf16Args a;
      tile(a);
      a.int8_keys = Int8Keys();
      if (ws.onednn_) {
        const int64_t at = kv_start[b] + g * HeadBlockBytes(n, ws.block_bytes_);
        return kernels::AttentionTileOnednn(a, ws.kv_onednn_.data() + at, ws.TileScratch(slot));
      }
      a.k = kv_bf16 + kv_start[b] + g * HeadValues(n);  // this kv head's keys, then values
      a.v = a.k + KeyValues(n);
      return kernels::AttentionTileBf16(a, ws.TileScratch(slot));
    }
    const int64_t at = kv_start[b] + g * HeadValues(n);
    kernels::AttentionArgs a;
    tile(a);
    if (reduced) {  // a short sequence at bf16 or int8: keys and values in place
      a.k = seq_qkv + width + g * d_head;
      a.ldk = a.ldv = ld_qkv;
      a.v = a.k + kv_width;
    } else {
      (PanelKeys(n) ? a.k_panels : a.k) = kv + at;
      a.ldk = a.ldv = d_head;
      a.v = kv + at + KeyValues(n);
    }
    kernels::AttentionTile(a, ws.TileScratch(slot));
  });
  // Rows outside every span attend to nothing: head outputs 0, so that they
  // are well defined.
  for (int64_t b = 0, end = 0; b <= batch; ++b) {
    const int64_t next = b < batch ? spans.start[b] : tokens;
    std::fill(heads + end * width, heads + next * width, 0.0f);
    if (b < batch) end = spans.start[b] + spans.length[b];
  }
}

// out = heads·W_outᵀ + b_out. x is no longer read (q, k, v are in ws), so out
// may equal x.
void MultiHeadSelfAttention::Project(int64_t tokens, float* out, AttentionWorkspace& ws) const {
  const float* heads = ws.heads_.data();  // [tokens, heads_width]
  out_proj_.Forward(heads, tokens, out, kernels::Activation::kIdentity, ws.rows_.data());
}

float* MultiHeadSelfAttention::ProjectBlock(AttentionWorkspace& ws, int64_t r0, int64_t n,
                                            int slot) const {
  assert(n >= 0 && n <= AttentionWorkspace::kOutRows && slot >= 0 && slot < ws.threads_);
  const int64_t d_model = options_.d_model, width = options_.heads_width();
  float* y = ws.OutScratch(slot);  // [n, d_model]
  out_proj_.Block({ws.heads_.data() + r0 * width, width}, n, y, d_model,
                  kernels::Activation::kIdentity, ws.out_rows_.data() + slot * ws.out_rows_bytes_);
  return y;
}

void MultiHeadSelfAttention::Attend(const float* x, int64_t tokens, const Spans& spans,
                                    AttentionWorkspace& ws) const {
  CheckCall(tokens, spans, ws);
  if (tokens == 0) return;
  // q | k | v of every token: [tokens, qkv_width].
  float* qkv = ws.qkv_.data();
  in_proj_.Forward(x, tokens, qkv, kernels::Activation::kIdentity, ws.rows_.data());
  if (q_norm_) NormQk(tokens, ws);
  if (options_.rotation != nullptr) {
    options_.rotation->ApplySpans(qkv, spans,
                                  {options_.n_heads, options_.kv_heads(), options_.head_width()});
  }
  PlanSequences(spans, ws);
  GatherKeysValues(spans, ws);
  AttendTiles(tokens, spans, ws);
}

}  // namespace phasor

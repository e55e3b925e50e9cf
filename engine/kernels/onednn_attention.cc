// engine/kernels/onednn_attention.h: the blocks' layout and oneDNN's calls
// (onednn_attention_onednn.inc, built with oneDNN only), and the tile's
// online softmax around them.
#include "engine/kernels/onednn_attention.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/cpu.h"
#include "engine/error.h"
#include "engine/kernels/gemm_bf16.h"
#include "engine/kernels/gemm_int8.h"
#include "engine/kernels/onednn_matmul.h"
#include "engine/kernels/rotate_rows.h"
#include "engine/kernels/vector_math.h"
#include "engine/tensor.h"

#if PHASOR_ONEDNN
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine/kernels/onednn_common.h"
#endif

namespace phasor::kernels {
namespace {

#include "engine/kernels/attention_tile.inc"

constexpr int64_t kRows = kOnednnRows;
// Rows of a call: kRows, or a whole query tile of kTileRows at once.
constexpr int64_t kTileRows = kOnednnTileRows;
constexpr int64_t kCallRows[2] = {kRows, kTileRows};
constexpr int64_t kBlock = kOnednnKeyBlock;

int64_t Quads(int64_t n) { return (n + 3) / 4 * 4; }
int64_t Align16(int64_t floats) { return (floats + 15) / 16 * 16; }
int64_t RoundRows(int64_t n) { return (n + kRows - 1) / kRows * kRows; }
// Bytes of one query row as the score product reads it.
int64_t QueryBytes(int64_t d_head, bool int8_keys) {
  return int8_keys ? Quads(d_head) : 2 * d_head;
}

#if PHASOR_ONEDNN
#include "engine/kernels/onednn_attention_onednn.inc"
#else
[[noreturn]] void NoOnednn() { throw Error("this build has no oneDNN (the amx target)"); }
#endif

}  // namespace

#if PHASOR_ONEDNN

bool OnednnAttentionActive() { return ActiveIsa() == Isa::kAmx; }

int64_t OnednnAttentionBlockBytes(int64_t d_head, bool int8_keys) {
  return FindHeads(d_head, int8_keys).block_bytes;
}

void PackOnednnBlock(const float* k, const float* v, int64_t ld, int64_t n, int64_t d_head,
                     bool int8_keys, uint8_t* out) {
  assert(n > 0 && n <= kBlock && d_head > 0 && ld >= d_head);
  Bound& b = State().Bind(FindHeads(d_head, int8_keys));
  b.Pack(k, v, ld, n, out);
}

void OnednnScores(int64_t rows, const void* q, const float* q_scales, const uint8_t* block,
                  int64_t d_head, bool int8_keys, float* scores) {
  assert(rows == kRows || rows == kTileRows);
  Bound& b = State().Bind(FindHeads(d_head, int8_keys));
  b.Scores(rows == kTileRows ? 1 : 0, q, q_scales, block, scores, kBlock);
}

void OnednnWeighted(int64_t rows, const uint16_t* p, const uint8_t* block, int64_t d_head,
                    bool int8_keys, float* out) {
  assert(rows == kRows || rows == kTileRows);
  State().Bind(FindHeads(d_head, int8_keys)).Weighted(rows == kTileRows ? 1 : 0, p, block, out);
}

#else

bool OnednnAttentionActive() { return false; }
void OnednnWeighted(int64_t, const uint16_t*, const uint8_t*, int64_t, bool, float*) { NoOnednn(); }
int64_t OnednnAttentionBlockBytes(int64_t, bool) { NoOnednn(); }
void PackOnednnBlock(const float*, const float*, int64_t, int64_t, int64_t, bool, uint8_t*) {
  NoOnednn();
}
void OnednnScores(int64_t, const void*, const float*, const uint8_t*, int64_t, bool, float*) {
  NoOnednn();
}

#endif

int64_t AttentionOnednnScratchFloats(int64_t max_q, int64_t d_head) {
  // Floats: scores [rows, block], p·v [rows, d_head], running max, sum,
  // rescale and the queries' scales [rows] each; then bfloat16 values, two a
  // float: the queries [rows, d_head + 4] (int8: their bytes, fewer) and p
  // [rows, block]; each part 64-byte aligned.
  const int64_t rows = RoundRows(std::max<int64_t>(max_q, 1));
  const int64_t halves = rows * (d_head + 4) + rows * kBlock;
  return Align16(rows * kBlock) + Align16(rows * d_head) + 4 * Align16(rows) +
         Align16((halves + 1) / 2) + 16;
}

namespace {

// The tile's scratch, cut as AttentionOnednnScratchFloats counts it.
struct TileScratch {
  float *scores, *partial, *run_max, *run_sum, *rescales, *q_scales;
  uint8_t* q;    // [rows, QueryBytes]
  uint16_t* pb;  // [rows, block]: bf16(p)

  TileScratch(float* s, int64_t rows, int64_t d_head, int64_t q_bytes) {
    scores = s;
    partial = scores + Align16(rows * kBlock);
    run_max = partial + Align16(rows * d_head);
    run_sum = run_max + Align16(rows);
    rescales = run_sum + Align16(rows);
    q_scales = rescales + Align16(rows);
    q = reinterpret_cast<uint8_t*>(q_scales + Align16(rows));
    pb = reinterpret_cast<uint16_t*>(q + (rows * q_bytes + 63) / 64 * 64);
  }
};

// The tile's queries as the score product reads them, rows [n_q, rows) zero
// (int8: q8 0, scale 0); tmp: d_head floats. As AttentionTileBf16's: bf16(q·scale),
// or q quantized with scale in its scale.
void PrepareQueries(const AttentionBf16Args& a, int64_t rows, const TileScratch& t, float* tmp) {
  const int64_t q_bytes = QueryBytes(a.d_head, a.int8_keys);
  for (int64_t i = 0; i < a.n_q; ++i) {
    uint8_t* row = t.q + i * q_bytes;
    if (a.int8_keys) {
      t.q_scales[i] = QuantizeRowInt8(a.q + i * a.ldq, a.d_head, q_bytes, row) * a.scale;
      continue;
    }
    ScaleRow(a.q + i * a.ldq, a.scale, a.d_head, tmp);
    RoundBf16(tmp, a.d_head, reinterpret_cast<uint16_t*>(row));
  }
  std::fill(t.q + a.n_q * q_bytes, t.q + rows * q_bytes, a.int8_keys ? uint8_t{128} : uint8_t{0});
  std::fill(t.q_scales + a.n_q, t.q_scales + rows, 0.0f);
  std::fill(t.pb + a.n_q * kBlock, t.pb + rows * kBlock, uint16_t{0});
}

// Row i's weights of the block's kt keys from j0 (the scores in place), into
// bf16(p) and the running max and sum; the weights past kt 0.
void Weights(const AttentionBf16Args& a, const TileScratch& t, int64_t i, int64_t j0, int64_t kt,
             bool first) {
  float* row = t.scores + i * kBlock;  // [kt]
  AddDistanceBias(a, i, j0, kt, row);
  MaskOutsideBand(a, i, j0, kt, row);
  const float new_max = std::max(t.run_max[i], Max(row, kt));
  uint16_t* p = t.pb + i * kBlock;
  const float sum = ExpBf16Sum(row, new_max, kt, p);
  if (first) {
    t.run_sum[i] = sum;
  } else {
    t.rescales[i] = Rescale(t.run_max[i], new_max);
    t.run_sum[i] = t.run_sum[i] * t.rescales[i] + sum;
  }
  t.run_max[i] = new_max;
  std::fill(p + kt, p + kBlock, uint16_t{0});
}

}  // namespace

void AttentionTileOnednn(const AttentionBf16Args& a, const uint8_t* blocks, float* scratch) {
#if PHASOR_ONEDNN
  if (DoneBeforeItStarts(a)) return;
  TileKeys keys = KeysOfTile(a);
  keys.begin = keys.begin / kBlock * kBlock;      // blocks start on a packed block
  if (keys.begin >= keys.end) return ZeroOut(a);  // every key outside the band
  const int64_t n_q = a.n_q, d_head = a.d_head, rows = RoundRows(n_q);
  const Heads& heads = FindHeads(d_head, a.int8_keys);
  Bound& bound = State().Bind(heads);
  const int64_t q_bytes = QueryBytes(d_head, a.int8_keys);
  const TileScratch t(scratch, rows, d_head, q_bytes);
  // A whole tile of kTileRows queries in one call of each product, else calls
  // of kRows: which depends on the tile's query count alone.
  const int c = rows == kTileRows ? 1 : 0;
  OnednnOneThread one;  // for the whole tile
  PrepareQueries(a, rows, t, t.partial);
  std::fill(t.run_max, t.run_max + n_q, -std::numeric_limits<float>::infinity());
  for (int64_t j0 = keys.begin; j0 < keys.end; j0 += kBlock) {
    const int64_t kt = std::min(kBlock, keys.end - j0);
    const bool first = j0 == keys.begin;
    const uint8_t* block = blocks + j0 / kBlock * heads.block_bytes;
    for (int64_t r0 = 0; r0 < rows; r0 += kCallRows[c]) {
      bound.Scores(c, t.q + r0 * q_bytes, t.q_scales + r0, block, t.scores + r0 * kBlock, kt);
    }
    for (int64_t i = 0; i < n_q; ++i) Weights(a, t, i, j0, kt, first);
    // partial [rows, d_head] = bf16(p) [rows, block] · bf16(v_block) [block, d_head]
    for (int64_t r0 = 0; r0 < rows; r0 += kCallRows[c]) {
      bound.Weighted(c, t.pb + r0 * kBlock, block, t.partial + r0 * d_head);
    }
    for (int64_t i = 0; i < n_q; ++i) {  // out = out·rescale + partial (the first: partial)
      float* o = a.out + i * a.ldo;
      const float* part = t.partial + i * d_head;
      if (first) {
        std::copy(part, part + d_head, o);
      } else {
        ScaleAddRow(o, t.rescales[i], part, d_head, o);
      }
    }
  }
  for (int64_t i = 0; i < n_q; ++i) {  // run_sum >= 1, or 0 for a query that saw no key
    ScaleRow(a.out + i * a.ldo, InverseSum(t.run_sum[i]), d_head, a.out + i * a.ldo);
  }
#else
  (void)a;
  (void)blocks;
  (void)scratch;
  NoOnednn();
#endif
}

}  // namespace phasor::kernels

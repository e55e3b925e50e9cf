// Row kernels of the rotation that generates positional encodings.
//
// A row of paired sin/cos values is a vector of unit complex numbers; shifting
// the position rotates each one (TurnRows).
//
// Pointers are rows of n floats (TurnPairs: doubles); out may not alias the
// inputs unless a kernel says so. Every kernel gives the same bits whichever
// Stores it is called with.
#pragma once

#include <cstdint>

namespace phasor::kernels {

// How a kernel writes its output row.
enum class Stores {
  kCached,     // ordinary stores: the row stays in cache for whoever reads it next
  kStreaming,  // non-temporal stores that bypass the caches (where the row is
               // 64-byte aligned and the CPU has them): for outputs far larger
               // than the caches, they skip reading each line before writing it
};

// Outputs of at least this many bytes are worth streaming: about twice the
// last-level cache of a small machine, so that a smaller output, which the
// next layer reads back from cache, is never streamed.
constexpr int64_t kStreamingBytes = int64_t{64} << 20;

// kStreaming for an output of at least kStreamingBytes, else kCached.
inline Stores StoresFor(int64_t bytes) {
  return bytes >= kStreamingBytes ? Stores::kStreaming : Stores::kCached;
}

// Orders a thread's streaming stores before its later stores (a flag or a
// barrier another thread waits on). Call once after the last streamed row,
// before the output is handed on. A no-op where there are no streaming stores.
void StreamFence();

// Rows a gather reads soon, which the gathering kernels below prefetch while
// they work on the current row: one cache line of each per 16 values written,
// spread over the row's work rather than a burst of requests that would fill
// the L1 cache's few miss slots at once. far is fetched into L2 (the memory
// latency overlaps several rows' work), next into L1 (the row after this one
// finds its lines at hand). Either may be null.
struct Ahead {
  const float* next = nullptr;  // the next gathered row, into L1
  const float* far = nullptr;   // the row kPrefetchRows on, into L2
};

// Token rows added to a kernel's output rows: output row r gets row ids[r] of
// table times scale. count ids are readable from ids on (at least the rows of
// the call); those past the call's own rows are prefetched.
struct Gather {
  const float* table = nullptr;  // [vocab, n]
  const int32_t* ids = nullptr;  // [count], already validated
  int64_t count = 0;
  float scale = 1.0f;
};

// Where the two values (x, y) of pair i sit in a row of n values.
enum class PairSlots {
  kAdjacent,  // x at 2i, y at 2i + 1
  kHalves,    // x at i, y at n/2 + i
};

// Where a row kernel writes: the kind of stores, and the rows a gather
// prefetches meanwhile.
struct RowWrite {
  Stores stores = Stores::kCached;
  Ahead ahead;
};

// rows output rows of n values (n even, h = n/2), each one start row turned
// by its own angles. The inputs hold pairs side by side in halves, whatever
// the output's slots: a = (x_0 .. x_{h-1}, y_0 .. y_{h-1}) the start row, u
// row r = (c_0 .. c_{h-1}, s_0 .. s_{h-1}) its turn. Pair i of output row r:
//   x' = x_i·c_i + y_i·s_i,  y' = y_i·c_i − x_i·s_i
// (one rounding per product and per sum, no fused multiply-add), written at
// the slots of pair i, plus row ids[r] of g's table times its scale if g is
// given (x·1 is x: unscaled rows are added as they are). For x = sin θ,
// y = cos θ and (c, s) = (cos φ, sin φ), (x', y') = (sin, cos)(θ + φ); for
// x = cos θ, y = sin θ take s = −sin φ. a: [n]; u: [rows, n]; out: [rows, n].
struct TurnRowsArgs {
  const float* a = nullptr;  // [n]
  const float* u = nullptr;  // [rows, n]
  int64_t rows = 0;
  int64_t n = 0;
  PairSlots slots = PairSlots::kAdjacent;
  const Gather* g = nullptr;  // or null: no token rows
  float* out = nullptr;       // [rows, n]
  Stores stores = Stores::kCached;
};
void TurnRows(const TurnRowsArgs& t);

// Turns the pairs of heads vectors in place (RoPE's q and k): vector h at
// x + h·stride, its pair i at (i, half + i) (kHalves) or (2i, 2i + 1)
// (kAdjacent), turned by the angle whose cosine and sine are c[i], s[i]:
//   (a, b) → (a·c − b·s, b·c + a·s)
// (one rounding per product and per sum, no fused multiply-add: every target
// gives the same bits). x: [heads, stride], stride >= 2·half; c, s: [half].
struct RotateHeadsArgs {
  float* x = nullptr;  // [heads, stride]
  int64_t heads = 0;
  int64_t stride = 0;
  const float* c = nullptr;  // [half]
  const float* s = nullptr;  // [half]
  int64_t half = 0;
  PairSlots slots = PairSlots::kHalves;
};
void RotateHeads(const RotateHeadsArgs& h);

// Rows of pairs (sin θ, cos θ) in double, turned by u = (cos φ, sin φ) per
// pair: out = (sin(θ+φ), cos(θ+φ)) as row·(cos φ, cos φ) plus row with each
// pair swapped times (sin φ, -sin φ): the products and sums of TurnRows.
// n is even; out may be row.
void TurnPairs(const double* row, const double* u, int64_t n, double* out);

// out[j] = x[j]*scale + t[j]   (x may be null: out[j] = t[j])
void ScaleAddRow(const float* x, float scale, const float* t, int64_t n, float* out,
                 RowWrite w = {});

// out[j] = x[j]*scale
void ScaleRow(const float* x, float scale, int64_t n, float* out, RowWrite w = {});

// out[j] = value: a plain write of a row, the bound the kernels above are
// measured against.
void FillRow(float value, int64_t n, float* out, Stores stores = Stores::kCached);

// Asks for the Ahead rows of n floats at once (the kernels' fallback where
// they have no vector code).
inline void PrefetchRows(Ahead ahead, int64_t n) {
  for (int64_t k = 0; ahead.far && k < n; k += 16) __builtin_prefetch(ahead.far + k, 0, 2);
  for (int64_t k = 0; ahead.next && k < n; k += 16) __builtin_prefetch(ahead.next + k, 0, 3);
}

// How many rows ahead a gather prefetches.
constexpr int64_t kPrefetchRows = 8;

// The Ahead rows for gathered row j of n: rows ids[j + 1] and
// ids[j + kPrefetchRows] of table [rows, d], null past the end.
inline Ahead AheadRows(const float* table, const int32_t* ids, int64_t j, int64_t n, int64_t d) {
  Ahead a;
  if (j + 1 < n) a.next = table + static_cast<int64_t>(ids[j + 1]) * d;
  if (j + kPrefetchRows < n) a.far = table + static_cast<int64_t>(ids[j + kPrefetchRows]) * d;
  return a;
}

}  // namespace phasor::kernels

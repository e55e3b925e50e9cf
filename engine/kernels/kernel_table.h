// The table of per-target kernels: one entry per kernel that has variants,
// filled once by engine/cpu.cc with the functions of the chosen target. The
// entry points of gemm.h, gemm_int8.h, rotate_rows.h and vector_math.h call
// through it.
//
// Each target's functions live in a namespace named after it and are defined
// in files built with that target's flags alone (*_avx512.cc, *_avx2.cc,
// *_portable.cc); this header declares them and carries no flags.
#pragma once

#include <cstdint>

#include "engine/kernels/rotate_rows.h"

namespace phasor::kernels {

// Rows [0, rows) x the first n_valid (<= 32) columns of one 32-column panel:
//   c = relu?(init + a·panel),  init = c itself (accumulate) or bias.
// a: [rows, k] row stride lda; panel: [k, 32] row stride ldp (read in its first
// n_valid columns); bias: [32]; c: [rows, n_valid] row stride ldc. Every
// output is init + Σ_k a·w in k order, one rounding per multiply-add step;
// relu keeps a NaN a NaN (as std::max(y, 0.0f)) on every target.
struct PanelArgs {
  const float* a;
  int64_t lda;
  int64_t rows;
  const float* panel;
  int64_t ldp;
  int64_t k;
  const float* bias;
  bool accumulate;
  bool relu;
  float* c;
  int64_t ldc;
  int64_t n_valid;
};

// The int8 product of gemm_int8.h on one 32-column panel: rows [0, rows) x
// the first n_valid (<= 32) columns of
//   c = relu?(float(acc - 128·sums)·(row_scales[r]·scales[j]) + bias[j]),
//   acc[r, j] = Σ_k q[r, k]·panel(k, j)   (exact, in int32),
// a multiply and an add rounded apart. q: [rows, 4·k4] bytes, row stride ldq;
// panel: [k4][32][4] int8 (column j's k = 4·kk + t at kk·128 + j·4 + t);
// sums, scales, bias: [32]; c: [rows, n_valid] row stride ldc.
struct Int8PanelArgs {
  const uint8_t* q;
  int64_t ldq;
  int64_t rows;
  const float* row_scales;
  const int8_t* panel;
  int64_t k4;
  const int32_t* sums;
  const float* scales;
  const float* bias;
  bool relu;
  float* c;
  int64_t ldc;
  int64_t n_valid;
};

// Rows [0, rows) x the first n_valid (<= 32) columns of one panel of
// Bf16Weights (gemm_bf16.h):
//   c = relu?(bias + Σ_k a·w),  a and w bfloat16, products and sums in float32.
// a: [rows, 2·pairs] bfloat16, row stride lda (values); panel: [pairs, 32, 2],
// W[j, 2i + t] at [64·i + 2·j + t], zero past the valid columns; bias: [32]; c:
// [rows, n_valid] row stride ldc. relu keeps a NaN a NaN. The sums' order and
// rounding are the target's; the value of an output depends on its row of a
// and its column of the panel only.
struct Bf16PanelArgs {
  const uint16_t* a;
  int64_t lda;
  int64_t rows;
  const uint16_t* panel;
  int64_t pairs;
  const float* bias;
  bool relu;
  float* c;
  int64_t ldc;
  int64_t n_valid;
};

struct KernelTable {
  void (*gemm_panel)(const PanelArgs& p);
  // The int8 product (gemm_int8.h): exact integer sums, the same bits on every
  // target.
  void (*int8_panel)(const Int8PanelArgs& p);
  // The row quantization of gemm_int8.h for the first values done with
  // vectors; each returns how many, and the caller does the rest with the
  // same operations. Int8MaxAbs: the max of |x| (NaN ignored) and whether any
  // value is NaN or infinite (some |x|·0 is NaN). Int8Quantize: q = clamp(
  // round_half_even(x·inv), -127, 127) + 128, for rows of finite values.
  int64_t (*int8_max_abs)(const float* x, int64_t n, float* max_abs, bool* finite);
  int64_t (*int8_quantize)(const float* x, int64_t n, float inv, uint8_t* q);
  // The avx512 target's entry is avx512bf16's on CPUs with AVX512-BF16.
  void (*bf16_panel)(const Bf16PanelArgs& p);
  // out[j] = ToBf16(x[j]) (gemm_bf16.h: to nearest, ties to even, NaN kept
  // quiet) for the first values done with vectors, in integer arithmetic: the
  // same bits on every target. Returns how many; the caller does the rest.
  int64_t (*bf16_round)(const float* x, int64_t n, uint16_t* out);

  // The row kernels of rotate_rows.h, same contracts.
  void (*stream_fence)();
  void (*turn_rows)(const float* a, const float* u, int64_t rows, int64_t n, PairSlots slots,
                    const Gather* g, float* out, Stores stores);
  void (*rotate_heads)(float* x, int64_t heads, int64_t stride, const float* c, const float* s,
                       int64_t half, PairSlots slots);
  // The first values of the row done with vectors: returns how many (an even
  // count); the caller finishes the row.
  int64_t (*turn_pairs)(const double* row, const double* u, int64_t n, double* out);
  void (*scale_add_row)(const float* x, float scale, const float* t, int64_t n, float* out,
                        Stores stores, Ahead ahead);
  void (*scale_row)(const float* x, float scale, int64_t n, float* out, Stores stores, Ahead ahead);
  void (*fill_row)(float value, int64_t n, float* out, Stores stores);

  // out[j] = exp(x[j] - shift) for the first values done with vectors, as
  // vector_math.h's ExpShifted: returns how many; the caller does the rest.
  int64_t (*exp_shifted)(const float* x, float shift, int64_t n, float* out);
  // out[j] = ToBf16(exp(x[j] - shift)) for the first values done with vectors,
  // as vector_math.h's ExpBf16Sum (exp in fused multiply-adds): returns how
  // many, and their rounded values' sum (in the target's fixed order) in *sum;
  // the caller does the rest.
  int64_t (*exp_bf16)(const float* x, float shift, int64_t n, uint16_t* out, float* sum);
  // The max of the first values done with vectors into *max (left as it is
  // for none): returns how many; the caller does the rest.
  int64_t (*row_max)(const float* x, int64_t n, float* max);
};

// The chosen target's table (engine/cpu.cc).
const KernelTable& Kernels();

// Each target's kernels, in a namespace named after it: the table's entries
// under the same names (GemmPanel for gemm_panel, ...), defined in the files of
// that target. kernel_decls.inc declares them.
namespace portable {
#include "engine/kernels/kernel_decls.inc"
}
namespace avx2 {
#include "engine/kernels/kernel_decls.inc"
}
namespace avx512 {
#include "engine/kernels/kernel_decls.inc"
}
// The avx512 target's int8 product with VNNI (vpdpbusd), in its own file built
// with -mavx512vnni: engine/cpu.cc puts it in the avx512 table when the CPU
// has VNNI; Skylake-SP and others without it keep avx512::Int8Panel.
namespace avx512vnni {
void Int8Panel(const Int8PanelArgs& p);
}
// The avx512 target's bfloat16 product with vdpbf16ps (gemm_bf16_avx512bf16.cc,
// built with -mavx512bf16 on top of avx512's flags).
namespace avx512bf16 {
void Bf16Panel(const Bf16PanelArgs& p);
}

}  // namespace phasor::kernels

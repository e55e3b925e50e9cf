// The table of per-target kernels, made from the list in kernel_list.inc:
// one entry per kernel that has variants, filled once by engine/cpu.cc with
// the functions of the chosen target (portable's where a target has no
// variant of its own). The entry points of gemm.h, gemm_int8.h, gemm_bf16.h,
// rotate_rows.h and vector_math.h call through it.
//
// Each target's functions live in a namespace named after it and are defined
// in files built with that target's flags alone (*_avx512.cc, *_avx2.cc,
// *_portable.cc); this header declares them and carries no flags.
#pragma once

#include <cstdint>
#include <type_traits>

#include "engine/cpu.h"
#include "engine/kernels/layer_norm.h"
#include "engine/kernels/rotate_rows.h"

namespace phasor::kernels {

// The next panel of a product, which a panel kernel reads into cache while it
// computes the current one (a hint: no result depends on it). Every panel
// kind below holds 128 bytes per k step (32 floats, 32 x 4 int8, 32 x 2
// bfloat16), so a panel of `steps` k steps is steps · 128 contiguous bytes.
// A row-tile walk (tile_rows.inc) gives each register tile its share: from
// `at`, one prefetch per k step, `step` bytes apart. Without it the next
// panel arrives in a burst when its first row tile starts, from L3 or memory,
// and that tile waits.
struct PanelFetch {
  const char* at = nullptr;  // null: nothing to fetch
  int64_t step = 0;          // bytes between the prefetches of successive k steps
};
inline constexpr int64_t kPanelStepBytes = 128;

// The two helpers below are internal to each file that includes this header:
// files built for different targets each compile their own copy, where one
// shared inline copy would carry whichever target's instructions the linker
// kept.
namespace {

// Row tile i of n's share of fetching `next`, a panel of `steps` k steps
// (steps · 128 bytes): from byte i · s · steps, one prefetch a k step s bytes
// apart, s = 128 / n rounded down. The shares never reach past the panel;
// together they touch every 64-byte line of it for 2 <= n <= 128 when n
// divides 128, every other line for n = 1.
inline PanelFetch FetchShare(const PanelFetch& next, int64_t steps, int64_t i, int64_t n) {
  const int64_t s = kPanelStepBytes / n;
  return {next.at + i * s * steps, s};
}

// Panel p + 1 of n_panels, each panel_bytes long from `panels` on, or nothing
// after the last: the next a block reads, or (after the block's last panel)
// the one that a block to its right starts with.
inline PanelFetch NextPanel(const void* panels, int64_t panel_bytes, int64_t p, int64_t n_panels) {
  if (p + 1 >= n_panels) return {};
  return {static_cast<const char*>(panels) + (p + 1) * panel_bytes};
}

}  // namespace

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
  PanelFetch next = {};  // the next panel (ldp 32, k steps), or nothing
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
  PanelFetch next = {};  // the next panel (k4 steps), or nothing
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
  PanelFetch next = {};  // the next panel (pairs steps), or nothing
};

// NOLINTBEGIN(bugprone-macro-parentheses): the list's macros paste names and types.

// The table: one entry per line of kernel_list.inc, in its order.
struct KernelTable {
#define PHASOR_KERNEL(entry, Name, Type, has_avx2, has_avx512) std::add_pointer_t<Type> entry;
#include "engine/kernels/kernel_list.inc"
#undef PHASOR_KERNEL
};

// The chosen target's table, and any available target's (engine/cpu.cc).
const KernelTable& Kernels();
const KernelTable& TableOf(Isa isa);

// Each target's kernels, in a namespace named after it, under the list's
// names, defined in the files built with that target's flags: portable
// defines every kernel, avx2 and avx512 those the list marks as theirs
// (engine/cpu.cc takes no other).
#define PHASOR_KERNEL(entry, Name, Type, has_avx2, has_avx512) \
  std::remove_pointer_t<decltype(KernelTable::entry)> Name;
namespace portable {
#include "engine/kernels/kernel_list.inc"
}  // namespace portable
namespace avx2 {
#include "engine/kernels/kernel_list.inc"
}  // namespace avx2
namespace avx512 {
#include "engine/kernels/kernel_list.inc"
}  // namespace avx512
#undef PHASOR_KERNEL

// The variants for a CPU feature, in their own namespaces.
#define PHASOR_KERNEL(entry, Name, Type, has_avx2, has_avx512)
#define PHASOR_KERNEL_FEATURE(entry, Name, target, variant, feature) \
  namespace variant {                                                \
  std::remove_pointer_t<decltype(KernelTable::entry)> Name;          \
  }
#include "engine/kernels/kernel_list.inc"
#undef PHASOR_KERNEL_FEATURE
#undef PHASOR_KERNEL

// The list as data, for the tests that walk every kernel on every target:
// each entry's name and whether avx2 and avx512 have their own variant.
struct KernelInfo {
  const char* entry;
  bool avx2;
  bool avx512;
};
inline constexpr KernelInfo kKernelList[] = {
#define PHASOR_KERNEL(entry, Name, Type, has_avx2, has_avx512) \
  {#entry, has_avx2 != 0, has_avx512 != 0},
#include "engine/kernels/kernel_list.inc"
#undef PHASOR_KERNEL
};
// NOLINTEND(bugprone-macro-parentheses)

inline constexpr int kKernelCount = sizeof(kKernelList) / sizeof(kKernelList[0]);

// Entry i of a table (in the list's order), as an address to compare.
inline const void* KernelAddress(const KernelTable& table, int i) {
  int at = 0;
  const void* found = nullptr;
#define PHASOR_KERNEL(entry, Name, Type, has_avx2, has_avx512) \
  if (at++ == i) found = reinterpret_cast<const void*>(table.entry);
#include "engine/kernels/kernel_list.inc"
#undef PHASOR_KERNEL
  return found;
}

}  // namespace phasor::kernels

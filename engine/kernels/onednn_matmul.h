// The amx target's bfloat16 and int8 products (engine/cpu.h), through
// oneDNN's matmul (Debian's libdnnl-dev). Its headers stay in
// onednn_matmul.cc; a build without oneDNN has no amx target, and the
// functions below then report that (HaveOnednn() false; Make* throw Error).
//
//   bf16:  y[rows, out] = act(xb·Wᵀ + b)   xb, W bfloat16; float32 sums, bias and act (but relu) in
//   oneDNN int8:  acc[rows, out] = q·Wqᵀ           q unsigned bytes (q8 + 128), Wq int8: exact
//   int32
//
// W is reordered once, at load, into the layout oneDNN picks for this CPU
// (format_tag::any: AMX tiles' on Sapphire Rapids, its AVX-512 ones
// elsewhere). A product of any row count runs in calls of exactly
// kOnednnRows rows (the last one padded with zero rows), each on the calling
// thread alone: so every row comes out of the same primitive whatever the
// batch around it (a line alone gives the bits it gives in a batch), the
// threads are phasor's own (ParallelTasks hands out the calls; oneDNN's
// OpenMP team is never started, nothing is oversubscribed), and the result
// does not depend on the thread count. Primitives are made once per shape
// (out, in, the row strides, the activation) and kept for the process.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/kernels/activations.h"

namespace phasor::kernels {

// Whether this build has oneDNN, and whether oneDNN reports AMX (its
// effective ISA avx512_core_amx; ONEDNN_MAX_CPU_ISA can narrow it).
bool HaveOnednn();
bool OnednnHasAmx();
// oneDNN's name of the kernel its bf16 matmul of this shape runs on here, as
// "brg:avx512_core_amx" (for tests and benchmarks; empty without oneDNN).
const char* OnednnBf16Kernel();

// Rows of one oneDNN call.
inline constexpr int64_t kOnednnRows = 32;

class OnednnMatmul {
 public:
  struct Impl;
  // w: [out, in] row-major bfloat16 values; b: [out] or null (no bias).
  static std::shared_ptr<const OnednnMatmul> MakeBf16(const uint16_t* w, const float* b,
                                                      int64_t out, int64_t in);
  // wq: [out, in] row-major int8 values.
  static std::shared_ptr<const OnednnMatmul> MakeInt8(const int8_t* wq, int64_t out, int64_t in);

  explicit OnednnMatmul(std::unique_ptr<Impl> impl);
  ~OnednnMatmul();

  // Bytes of the reordered weights and the bias.
  int64_t bytes() const;
  // oneDNN's implementation name ("brg:avx512_core_amx", ...).
  const char* kernel() const;

  // xb: [rows, in] bfloat16 with row stride ldx >= in; y: [rows, out] row
  // stride ldy >= out. Serial: on the calling thread. Throws Error if oneDNN
  // fails (it does not for valid shapes).
  void RunBf16(const uint16_t* xb, int64_t ldx, int64_t rows, float* y, int64_t ldy,
               Activation act) const;
  // q: [rows, in] bytes, row stride ldq >= in; acc: [rows, out] row stride ldacc.
  void RunInt8(const uint8_t* q, int64_t ldq, int64_t rows, int32_t* acc, int64_t ldacc) const;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace phasor::kernels

// The rates of the two instructions a bfloat16 product can be made of, on
// the calling thread: vdpbf16ps (AVX512-BF16: two multiply-adds a float lane)
// and vfmadd231ps (one), both on 512-bit vectors. engine/cpu.cc measures them
// once, where the CPU has AVX512-BF16, to choose the avx512 target's bf16
// panel (UsesBf16Dot): on some CPUs (Sapphire Rapids) vdpbf16ps runs at half
// the FMA's rate, and the bf16 product would then be slower than float32.
// bench/peak_bench.cc's BM_Bf16Peak and BM_Fp32Peak measure the same at length.
#pragma once

namespace phasor::kernels {

struct DotRates {
  double bf16_flops_per_s = 0;  // vdpbf16ps: 64 flops an instruction
  double fp32_flops_per_s = 0;  // vfmadd231ps on zmm: 32 flops an instruction
};

namespace avx512bf16 {
// About 0.3 ms: each loop timed 3 times, interleaved, the fastest kept (so
// that another process on the core slows one run, not the comparison).
// Requires AVX512-BF16.
DotRates MeasureDotRates();
}  // namespace avx512bf16

}  // namespace phasor::kernels

// The instruction-set target the kernels run on, chosen once.
//
// Kernels that need a CPU feature come in variants, one per target, each in
// its own file built with that target's flags (gemm_avx512.cc, gemm_avx2.cc,
// gemm_portable.cc, ...); everything else is built for baseline x86-64. On the
// first kernel call (or the first call below) the best target the CPU reports
// is chosen, unless the environment variable PHASOR_ISA names one; SetIsa
// replaces the choice. Callers never test CPU features themselves.
//
//   avx512    AVX-512 F, BW, DQ and VL (Skylake-SP and later Xeons, Ice Lake,
//             Zen 4 and later); the int8 product takes VNNI's vpdpbusd where
//             the CPU also has AVX-512 VNNI (Cascade Lake, Ice Lake, Zen 4 and
//             later), the same bits as without; the bfloat16 product uses
//             AVX512-BF16 where the CPU has it too (Cooper Lake, Sapphire
//             Rapids, Zen 4 and later)
//   amx       avx512's kernels, with the bf16 and int8 products of the
//             layers through oneDNN's matmul (engine/kernels/onednn_matmul.h;
//             attention's q·kᵀ and p·v: engine/kernels/onednn_attention.h):
//             chosen where oneDNN reports AMX (Sapphire Rapids and later
//             Xeons); any CPU with avx512 and AVX-512 VNNI runs it when forced
//             (oneDNN then takes its AVX-512 kernels), so it is tested there
//   avx2      AVX2 and FMA (Haswell and later, Zen 1 to 3)
//   portable  no intrinsics: plain C++ and Eigen, vectorised for the baseline
#pragma once

#include <string>
#include <vector>

namespace phasor {

enum class Isa { kPortable, kAvx2, kAvx512, kAmx };

// "portable", "avx2", "avx512", "amx".
const char* IsaName(Isa isa);

// The targets this CPU runs, best first (portable always last): amx first
// where oneDNN reports AMX, else after avx512 (it runs, but is not chosen).
std::vector<Isa> AvailableIsas();

// The target the kernels use: PHASOR_ISA's if set (a name the CPU lacks or an
// unknown one throws UsageError), else the best available.
Isa ActiveIsa();

// Makes the kernels use isa from now on. Throws UsageError, naming what the CPU
// has, for an unknown name or a target the CPU lacks. Call it before kernels
// run on other threads, not while they run.
void SetIsa(const std::string& name);
void SetIsa(Isa isa);

// Whether the CPU has AVX512-BF16 (vdpbf16ps).
bool HasAvx512Bf16();

// Whether oneDNN reports AMX tiles usable here (and may use them: the
// environment's ONEDNN_MAX_CPU_ISA can narrow it). The amx target is the
// first choice only then.
bool HasAmx();

// Whether the avx512 target's bfloat16 product uses vdpbf16ps: where the CPU
// has it and its dot product is at least as fast as float32 FMA (measured
// once, Bf16DotPaysOff). Elsewhere it keeps bfloat16 weights and widens them
// to float32, at the speed of the float32 product.
bool UsesBf16Dot();
// The rule: vdpbf16ps's rate (flops a second, two multiply-adds a lane) at
// least the FMA's (one a lane).
bool Bf16DotPaysOff(double bf16_flops_per_s, double fp32_flops_per_s);

// The kernel the chosen target's bf16 and int8 products run on, for --json:
// "onednn" (amx), "vdpbf16ps" or "widened" (bf16); "vpdpbusd" (VNNI),
// "vpmaddwd" or "portable" (int8).
const char* Bf16ProductKernel();
const char* Int8ProductKernel();

}  // namespace phasor

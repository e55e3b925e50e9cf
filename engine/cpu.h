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
//   avx2      AVX2 and FMA (Haswell and later, Zen 1 to 3)
//   portable  no intrinsics: plain C++ and Eigen, vectorised for the baseline
#pragma once

#include <string>
#include <vector>

namespace phasor {

enum class Isa { kPortable, kAvx2, kAvx512 };

// "portable", "avx2", "avx512".
const char* IsaName(Isa isa);

// The targets this CPU runs, best first (portable always last).
std::vector<Isa> AvailableIsas();

// The target the kernels use: PHASOR_ISA's if set (a name the CPU lacks or an
// unknown one throws UsageError), else the best available.
Isa ActiveIsa();

// Makes the kernels use isa from now on. Throws UsageError, naming what the CPU
// has, for an unknown name or a target the CPU lacks. Call it before kernels
// run on other threads, not while they run.
void SetIsa(const std::string& name);
void SetIsa(Isa isa);

// Whether the avx512 target's bfloat16 product uses AVX512-BF16 (vdpbf16ps)
// on this CPU; without it, it widens bfloat16 to float.
bool HasAvx512Bf16();

}  // namespace phasor

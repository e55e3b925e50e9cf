#include "engine/cpu.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/kernels/dot_rate.h"
#include "engine/kernels/kernel_table.h"
#include "engine/kernels/onednn_matmul.h"

namespace phasor {
namespace {

using kernels::KernelTable;

// What the CPU (and the operating system, which must save the wider registers)
// supports, read once.
bool Has(Isa isa) {
#if defined(__x86_64__) || defined(__i386__)
  static const bool avx512 = __builtin_cpu_supports("avx512f") &&
                             __builtin_cpu_supports("avx512bw") &&
                             __builtin_cpu_supports("avx512dq") &&
                             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma");
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  // oneDNN's int8 matmul sums exactly in int32 with VNNI or AMX; without
  // VNNI its AVX-512 kernels go through 16-bit sums that may saturate.
  static const bool amx = kernels::HaveOnednn() && avx512 && __builtin_cpu_supports("avx512vnni");
  switch (isa) {
    case Isa::kAmx:
      return amx;
    case Isa::kAvx512:
      return avx512;
    case Isa::kAvx2:
      return avx2;
    case Isa::kPortable:
      return true;
  }
  return false;
#else
  return isa == Isa::kPortable;
#endif
}

bool CpuHasAvx512Bf16() {
#if defined(__x86_64__)
  static const bool bf16 = Has(Isa::kAvx512) && __builtin_cpu_supports("avx512bf16");
  return bf16;
#else
  return false;
#endif
}

bool CpuHasAvx512Vnni() {
#if defined(__x86_64__)
  static const bool vnni = Has(Isa::kAvx512) && __builtin_cpu_supports("avx512vnni");
  return vnni;
#else
  return false;
#endif
}

// NOLINTBEGIN(bugprone-macro-parentheses): the list's macros paste names.

// A target's table: its own variants where the list marks them, portable's
// elsewhere (PHASOR_KERNEL_HAS_0 / _1 pick one of the two names).
#define PHASOR_KERNEL_HAS_0(target, Name) kernels::portable::Name
#define PHASOR_KERNEL_HAS_1(target, Name) kernels::target::Name

KernelTable PortableTable() {
  KernelTable table{};
#define PHASOR_KERNEL(entry, Name, Type, has_avx2, has_avx512) \
  table.entry = kernels::portable::Name;
#include "engine/kernels/kernel_list.inc"
#undef PHASOR_KERNEL
  return table;
}

#if defined(__x86_64__)
KernelTable Avx2Table() {
  KernelTable table{};
#define PHASOR_KERNEL(entry, Name, Type, has_avx2, has_avx512) \
  table.entry = PHASOR_KERNEL_HAS_##has_avx2(avx2, Name);
#include "engine/kernels/kernel_list.inc"
#undef PHASOR_KERNEL
  return table;
}

// Whether a feature's variant of a kernel goes into the avx512 table where
// the CPU has the feature: always, but for the bfloat16 panel only where
// vdpbf16ps pays (UsesBf16Dot).
bool FeaturePays(const char* entry) {
  return std::strcmp(entry, "bf16_panel") != 0 || UsesBf16Dot();
}

// avx512's, then the variants for the CPU features this CPU has.
KernelTable Avx512Table() {
  KernelTable table{};
#define PHASOR_KERNEL(entry, Name, Type, has_avx2, has_avx512) \
  table.entry = PHASOR_KERNEL_HAS_##has_avx512(avx512, Name);
#define PHASOR_KERNEL_FEATURE(entry, Name, target, variant, feature) \
  if (__builtin_cpu_supports(feature) && FeaturePays(#entry)) table.entry = kernels::variant::Name;
#include "engine/kernels/kernel_list.inc"
#undef PHASOR_KERNEL_FEATURE
#undef PHASOR_KERNEL
  return table;
}
#endif

}  // namespace

// NOLINTEND(bugprone-macro-parentheses)

namespace kernels {

const KernelTable& TableOf(Isa isa) {
  static const KernelTable portable = PortableTable();
#if defined(__x86_64__)
  static const KernelTable avx2 = Avx2Table();
  static const KernelTable avx512 = Avx512Table();
  if (isa == Isa::kAvx512 || isa == Isa::kAmx) return avx512;  // amx: products aside
  if (isa == Isa::kAvx2) return avx2;
#else
  (void)isa;
#endif
  return portable;
}

}  // namespace kernels

namespace {

using kernels::TableOf;

std::string AvailableText() {
  std::string text;
  for (Isa isa : AvailableIsas()) text += (text.empty() ? "" : ", ") + std::string(IsaName(isa));
  return text;
}

Isa Parse(const std::string& name, const char* source) {
  for (Isa isa : {Isa::kAmx, Isa::kAvx512, Isa::kAvx2, Isa::kPortable}) {
    if (name != IsaName(isa)) continue;
    if (!Has(isa)) {
      throw UsageError(std::string(source) + " " + name + ": this CPU lacks it (it has " +
                       AvailableText() + ")");
    }
    return isa;
  }
  throw UsageError(std::string(source) + " '" + name +
                   "' is not a target (amx, avx512, avx2 or portable; this CPU has " +
                   AvailableText() + ")");
}

std::atomic<int> g_active{-1};  // an Isa, or -1 before the first choice
std::atomic<const KernelTable*> g_table{nullptr};

void UseTarget(Isa isa) {
  g_table.store(&TableOf(isa), std::memory_order_release);
  g_active.store(static_cast<int>(isa), std::memory_order_release);
}

// The first choice: PHASOR_ISA's, else the best available. Made once.
void ChooseOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (g_active.load(std::memory_order_acquire) >= 0) return;  // SetIsa came first
    const char* env = std::getenv("PHASOR_ISA");
    UseTarget(env != nullptr && *env != '\0' ? Parse(env, "PHASOR_ISA") : AvailableIsas().front());
  });
}

}  // namespace

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kAmx:
      return "amx";
    case Isa::kAvx512:
      return "avx512";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kPortable:
      return "portable";
  }
  return "portable";
}

std::vector<Isa> AvailableIsas() {
  std::vector<Isa> isas;
  const bool amx_first = Has(Isa::kAmx) && HasAmx();
  if (amx_first) isas.push_back(Isa::kAmx);
  for (Isa isa : {Isa::kAvx512, Isa::kAmx, Isa::kAvx2, Isa::kPortable}) {
    if (Has(isa) && !(isa == Isa::kAmx && amx_first)) isas.push_back(isa);
  }
  return isas;
}

Isa ActiveIsa() {
  if (g_active.load(std::memory_order_acquire) < 0) ChooseOnce();
  return static_cast<Isa>(g_active.load(std::memory_order_acquire));
}

void SetIsa(const std::string& name) { SetIsa(Parse(name, "--isa")); }

void SetIsa(Isa isa) {
  if (!Has(isa)) Parse(IsaName(isa), "target");  // throws, naming what the CPU has
  UseTarget(isa);
}

bool HasAvx512Bf16() { return CpuHasAvx512Bf16(); }

bool HasAmx() {
  static const bool amx = kernels::OnednnHasAmx();
  return amx;
}

bool Bf16DotPaysOff(double bf16_flops_per_s, double fp32_flops_per_s) {
  return bf16_flops_per_s >= fp32_flops_per_s;
}

bool UsesBf16Dot() {
  static const bool pays = [] {
#if defined(__x86_64__)
    if (!CpuHasAvx512Bf16()) return false;
    const kernels::DotRates rates = kernels::avx512bf16::MeasureDotRates();
    return Bf16DotPaysOff(rates.bf16_flops_per_s, rates.fp32_flops_per_s);
#else
    return false;
#endif
  }();
  return pays;
}

const char* Bf16ProductKernel() {
  switch (ActiveIsa()) {
    case Isa::kAmx:
      return "onednn";
    case Isa::kAvx512:
      return UsesBf16Dot() ? "vdpbf16ps" : "widened";
    default:
      return "widened";
  }
}

const char* Int8ProductKernel() {
  switch (ActiveIsa()) {
    case Isa::kAmx:
      return "onednn";
    case Isa::kAvx512:
      return CpuHasAvx512Vnni() ? "vpdpbusd" : "vpmaddwd";
    case Isa::kAvx2:
      return "vpmaddwd";
    default:
      return "portable";
  }
}

namespace kernels {

const KernelTable& Kernels() {
  const KernelTable* table = g_table.load(std::memory_order_acquire);
  if (table == nullptr) {
    ChooseOnce();
    table = g_table.load(std::memory_order_acquire);
  }
  return *table;
}

}  // namespace kernels
}  // namespace phasor

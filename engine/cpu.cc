#include "engine/cpu.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/kernels/kernel_table.h"

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
  switch (isa) {
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

// avx512's, then the variants for the CPU features this CPU has.
KernelTable Avx512Table() {
  KernelTable table{};
#define PHASOR_KERNEL(entry, Name, Type, has_avx2, has_avx512) \
  table.entry = PHASOR_KERNEL_HAS_##has_avx512(avx512, Name);
#define PHASOR_KERNEL_FEATURE(entry, Name, target, variant, feature) \
  if (__builtin_cpu_supports(feature)) table.entry = kernels::variant::Name;
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
  if (isa == Isa::kAvx512) return avx512;
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
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2, Isa::kPortable}) {
    if (name != IsaName(isa)) continue;
    if (!Has(isa)) {
      throw UsageError(std::string(source) + " " + name + ": this CPU lacks it (it has " +
                       AvailableText() + ")");
    }
    return isa;
  }
  throw UsageError(std::string(source) + " '" + name +
                   "' is not a target (avx512, avx2 or portable; this CPU has " + AvailableText() +
                   ")");
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
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2, Isa::kPortable}) {
    if (Has(isa)) isas.push_back(isa);
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

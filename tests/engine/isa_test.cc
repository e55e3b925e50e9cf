// Every per-target kernel on every target this CPU has, against the portable
// target (the reference) and against naive twins: the row kernels and exp give
// the same bits on every target; the packed product gives the same bits on
// avx512 and avx2 (fused multiply-adds in k order) and stays within 1e-5 of
// portable's (a multiply and an add) and of a double sum; on each target any
// thread count gives the same bits. The whole suite also runs under
// PHASOR_ISA=avx2 and =portable (ctest phasor_tests_isa_*).
// This file: the choice of target; the kernels on every target are in
// isa_*_test.cc, one family a file.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "engine/cpu.h"
#include "engine/error.h"
#include "tests/support/kernel_test_util.h"

namespace phasor::kernels {
namespace {

using phasor::testing::IsaGuard;

TEST(IsaTest, PortableIsAlwaysAvailableAndLast) {
  const std::vector<Isa> isas = AvailableIsas();
  ASSERT_FALSE(isas.empty());
  EXPECT_EQ(isas.back(), Isa::kPortable);
  EXPECT_NE(std::find(isas.begin(), isas.end(), ActiveIsa()), isas.end());
}

// The amx target (oneDNN's products) is the first choice only where the CPU
// has AMX tiles (its own flag in /proc/cpuinfo, read here apart from oneDNN)
// and oneDNN reports them usable: elsewhere oneDNN's AVX-512 kernels are
// slower than phasor's own (README, "The amx target"), so avx512 comes first.
TEST(IsaTest, AmxComesFirstOnlyWhereTheCpuHasAmxTiles) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  bool tiles = false;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) == 0 && line.find(" amx_tile") != std::string::npos) tiles = true;
  }
  const std::vector<Isa> isas = AvailableIsas();
  if (!tiles) {
    EXPECT_FALSE(HasAmx());
  }
  EXPECT_EQ(isas.front() == Isa::kAmx, tiles && HasAmx()) << "first: " << IsaName(isas.front());
}

TEST(IsaTest, UnknownOrMissingTargetIsAUsageErrorNamingWhatTheCpuHas) {
  IsaGuard guard;
  try {
    SetIsa("sse9");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("this CPU has"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("portable"), std::string::npos) << e.what();
  }
  for (Isa isa : {Isa::kAmx, Isa::kAvx512, Isa::kAvx2}) {
    const auto isas = AvailableIsas();
    if (std::find(isas.begin(), isas.end(), isa) != isas.end()) continue;
    EXPECT_THROW(SetIsa(IsaName(isa)), UsageError);
  }
  for (Isa isa : AvailableIsas()) {
    SetIsa(IsaName(isa));
    EXPECT_EQ(ActiveIsa(), isa);
  }
}

}  // namespace
}  // namespace phasor::kernels

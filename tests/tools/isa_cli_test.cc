// `phasor --isa NAME` and PHASOR_ISA: the target the kernels run on. --version
// names it on a line `isa: NAME`; --json carries it; an unknown target or one
// the CPU lacks is one error line and exit 2; every target this CPU has gives
// the toy encoder's output within 1e-5 of portable's, the same bits for one
// thread and two.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/cpu.h"
#include "engine/npy.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

using testing::ExpectOneErrorLine;
using testing::RunPhasor;

class EnvGuard {  // PHASOR_ISA set for the CLI runs of a test, unset after
 public:
  explicit EnvGuard(const char* value) { setenv("PHASOR_ISA", value, 1); }
  ~EnvGuard() { unsetenv("PHASOR_ISA"); }
};

bool Has(Isa isa) {
  for (Isa i : AvailableIsas()) {
    if (i == isa) return true;
  }
  return false;
}

TEST(IsaCliTest, VersionNamesTheTarget) {
  for (Isa isa : AvailableIsas()) {
    const auto r = RunPhasor(std::string("--isa ") + IsaName(isa) + " --version");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find(std::string("\nisa: ") + IsaName(isa) + "\n"), std::string::npos) << r.out;
    EnvGuard env(IsaName(isa));
    const auto e = RunPhasor("--version");
    EXPECT_NE(e.out.find(std::string("\nisa: ") + IsaName(isa) + "\n"), std::string::npos) << e.out;
  }
}

TEST(IsaCliTest, UnknownTargetIsAUsageError) {
  auto r = RunPhasor("--isa sse9 encode --tokens \"3 14\"");
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("'sse9' is not a target"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("this CPU has"), std::string::npos) << r.err;
  {
    EnvGuard env("sse9");
    r = RunPhasor("encode --tokens \"3 14\"");
    EXPECT_EQ(r.exit_code, 2);
    ExpectOneErrorLine(r);
    EXPECT_NE(r.err.find("PHASOR_ISA 'sse9'"), std::string::npos) << r.err;
    r = RunPhasor("--version");
    EXPECT_EQ(r.exit_code, 2);
    // --isa wins over PHASOR_ISA.
    r = RunPhasor("encode --isa portable --tokens \"3 14\"");
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2}) {
    if (Has(isa)) continue;
    r = RunPhasor(std::string("encode --isa ") + IsaName(isa) + " --tokens 3");
    EXPECT_EQ(r.exit_code, 2);
    ExpectOneErrorLine(r);
    EXPECT_NE(r.err.find("this CPU lacks it"), std::string::npos) << r.err;
  }
}

// --isa is read once, by the command-line parser, wherever it stands; a bad
// PHASOR_ISA still goes before --help and before a mistake in the command line.
TEST(IsaCliTest, ReadOnceWhereverItStands) {
  auto r = RunPhasor("--version --isa portable");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nisa: portable\n"), std::string::npos) << r.out;
  r = RunPhasor("--isa=portable --version");
  EXPECT_NE(r.out.find("\nisa: portable\n"), std::string::npos) << r.out;
  r = RunPhasor("--isa \"\" --version");
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("--isa '' is not a target"), std::string::npos) << r.err;
  r = RunPhasor("--isa");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--isa: 1 required NAME missing"), std::string::npos) << r.err;
  EnvGuard env("sse9");
  for (const char* args : {"--help", "--isa", "pe --length 4", "pe --help"}) {
    r = RunPhasor(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    ExpectOneErrorLine(r);
    EXPECT_NE(r.err.find("PHASOR_ISA 'sse9'"), std::string::npos) << args << ": " << r.err;
  }
  r = RunPhasor("--isa portable --help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(IsaCliTest, JsonCarriesTheTarget) {
  for (Isa isa : AvailableIsas()) {
    const std::string compact = std::string("\"isa\":\"") + IsaName(isa) + "\"";
    const std::string spaced = std::string("\"isa\": \"") + IsaName(isa) + "\"";
    const std::string flag = std::string(" --isa ") + IsaName(isa);
    for (const std::string& cmd :
         {std::string("encode --tokens \"3 14 15\" --json"),
          std::string("embed --seq-len 100 --d-model 16 --vocab 50 --json"),
          std::string(
              "bench-pe --d-model 16 --lengths 64 --min-seconds 0.001 --vocab 50 --json")}) {
      const auto r = RunPhasor(cmd + flag);
      EXPECT_EQ(r.exit_code, 0) << cmd << flag << ": " << r.err;
      EXPECT_TRUE(r.out.find(compact) != std::string::npos ||
                  r.out.find(spaced) != std::string::npos)
          << cmd << flag << ": " << r.out;
    }
  }
}

TEST(IsaCliTest, EveryTargetEncodesAlike) {
  const std::string tokens = " encode --tokens \"3 14 15 92 65 35 89 79 32 38 46 26 43\"";
  const std::string base = ::testing::TempDir() + "phasor_isa_cli_";
  std::vector<float> portable;
  const std::vector<Isa> isas = AvailableIsas();
  for (auto it = isas.rbegin(); it != isas.rend(); ++it) {  // portable first
    const std::string name = IsaName(*it);
    std::vector<float> by_threads[2];
    for (int threads : {1, 2}) {
      const std::string out = base + name + std::to_string(threads) + ".npy";
      const auto r = RunPhasor("--isa " + name + tokens + " --threads " + std::to_string(threads) +
                               " --output " + out);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      by_threads[threads - 1] = ReadNpy(out).data;
      std::remove(out.c_str());
    }
    ASSERT_EQ(by_threads[0].size(), by_threads[1].size());
    EXPECT_EQ(std::memcmp(by_threads[0].data(), by_threads[1].data(),
                          by_threads[0].size() * sizeof(float)),
              0)
        << name << ": 1 and 2 threads differ";
    if (portable.empty()) portable = by_threads[0];
    ASSERT_EQ(portable.size(), by_threads[0].size());
    for (size_t i = 0; i < portable.size(); ++i) {
      ASSERT_NEAR(by_threads[0][i], portable[i], 1e-5) << name << " at " << i;
    }
  }
}

}  // namespace
}  // namespace phasor

// One set of input rules for every subcommand: output paths checked before any
// work, repeated or non-positive measurement settings refused, words where
// only options are taken named in order, OMP_NUM_THREADS respected.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/run.h"

namespace phasor {
namespace {

using testing::ExpectOneErrorLine;
using testing::RunPhasor;

void ExpectError(const std::string& args, int code, const std::string& message) {
  const auto r = RunPhasor(args);
  EXPECT_EQ(r.exit_code, code) << args << "\n" << r.err;
  ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
}

std::string Temp(const std::string& name) {
  return ::testing::TempDir() + "input_rules_" + std::to_string(getpid()) + "_" + name;
}

// A missing directory is found before the run, not after it: bench-pe prints
// no table, embed embeds nothing (a 1M-token run would take seconds).
TEST(InputRulesCliTest, OutputPathsAreCheckedBeforeAnyWork) {
  auto r = RunPhasor("bench-pe --lengths 1K --min-seconds 0.01 --png /nonexistent/dir/b.png");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("cannot write /nonexistent/dir/b.png: No such file or directory"),
            std::string::npos)
      << r.err;
  // Before any allocation too: the path, not the memory cap, is what is named.
  r = RunPhasor("--max-memory 1M embed --seq-len 64M --d-model 2 --output /nonexistent/dir/x.npy");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find("cannot write /nonexistent/dir/x.npy: No such file or directory"),
            std::string::npos)
      << r.err;
  ExpectError("pe --d-model 8 --length 4 --similarity /nonexistent/dir/s.png", 1,
              "cannot write /nonexistent/dir/s.png: No such file or directory");
  // A directory where a file is to be written.
  const std::string dir = Temp("dir.npy");
  ASSERT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
  ExpectError("embed --seq-len 16 --d-model 8 --output " + dir, 1, "Is a directory");
  rmdir(dir.c_str());
}

TEST(InputRulesCliTest, BenchPeRefusesRepeatedLengthsAndNonPositiveSettings) {
  ExpectError("bench-pe --lengths 512,512", 2, "--lengths: 512 is given twice in '512,512'");
  ExpectError("bench-pe --lengths '1K, 2K, 1024'", 2, "--lengths: 1024 is given twice");
  for (const char* v : {"-1", "0", "nan"}) {
    ExpectError(std::string("bench-pe --lengths 1K --min-seconds ") + v, 2,
                std::string("--min-seconds must be greater than 0 and at most 3600, got ") + v);
  }
  for (const char* v : {"0", "-2"}) {
    ExpectError(std::string("bench-pe --lengths 1K --max-table-gib ") + v, 2,
                std::string("--max-table-gib must be greater than 0, got ") + v);
  }
}

// The RoPE chart is titled and labelled for what it measures: q and k read and
// written, not PE rows written.
TEST(InputRulesCliTest, RopeChartSaysWhatItMeasures) {
  const std::string png = Temp("rope.png");
  const auto r = RunPhasor(
      "bench-pe --kind rope --d-model 64 --heads 2 --lengths 1K,4K --min-seconds 0.01 "
      "--json --png " +
      png);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("phasor: wrote " + png + ": GB/s of q and k, read and written"),
            std::string::npos)
      << r.err;
  std::remove(png.c_str());
}

TEST(InputRulesCliTest, OmpNumThreadsIsTheDefaultThreadCount) {
  ASSERT_EQ(setenv("OMP_NUM_THREADS", "1", 1), 0);
  const auto r = RunPhasor("embed --seq-len 1K --d-model 16 --json");
  unsetenv("OMP_NUM_THREADS");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["threads"], 1) << r.out;
  // --threads still decides when given.
  ASSERT_EQ(setenv("OMP_NUM_THREADS", "1", 1), 0);
  const auto two = RunPhasor("embed --seq-len 1K --d-model 16 --threads 2 --json");
  unsetenv("OMP_NUM_THREADS");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(nlohmann::json::parse(two.out)["threads"], 2) << two.out;
}

TEST(InputRulesCliTest, WordsWhereOnlyOptionsAreTakenAreNamedInOrder) {
  ExpectError("encode 3 14 15", 2,
              "encode takes options only, got the arguments '3 14 15' (did you mean --tokens "
              "\"3 14 15\"?)");
  ExpectError("encode --json 3,14,15", 2, "(did you mean --tokens \"3,14,15\"?)");
  ExpectError("pe --d-model 8 --length 4 extra", 2,
              "pe takes options only, got the argument 'extra' (see phasor pe --help)");
  // Option values are not words: --max-memory's, --tokens' negative id.
  const auto r = RunPhasor("--max-memory 1G encode --tokens 1 --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// --output is the name of what a command writes; make-toy takes it too, and
// --out elsewhere is pointed at it.
TEST(InputRulesCliTest, OutAndOutputAreOneName) {
  ExpectError("encode --tokens 1 --out x.npy", 2,
              "unknown option --out for encode (did you mean --output?)");
  const std::string dir = Temp("toy");
  const auto r = RunPhasor("make-toy --output " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::ifstream(dir + "/config.json").good());
  ExpectError("make-toy --output " + dir, 2, "already holds a model");
  std::remove((dir + "/config.json").c_str());
  std::remove((dir + "/model.safetensors").c_str());
  rmdir(dir.c_str());
}

TEST(InputRulesCliTest, SimilarityOfOnePositionIsRefused) {
  ExpectError("pe --d-model 8 --length 1 --similarity " + Temp("one.png"), 2,
              "--similarity draws distances 0..--length - 1: --length must be 2 or more, got 1");
}

// Coinciding curves are drawn as one and the picture says so.
TEST(InputRulesCliTest, SimilaritySaysWhenTheCurvesCoincide) {
  const std::string png = Temp("sim.png");
  const auto r = RunPhasor("pe --d-model 64 --length 100 --similarity " + png);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("for 4 first positions (they coincide, largest difference"),
            std::string::npos)
      << r.err;
  std::remove(png.c_str());
}

}  // namespace
}  // namespace phasor

// Runs the built phasor CLI as a user would and captures what it prints.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/paths.h"

namespace phasor::testing {

struct RunResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// args is a shell-quoted argument string appended to the CLI's path.
inline RunResult RunPhasor(const std::string& args) {
  static int counter = 0;
  // Process id and a counter: tests may run in parallel processes.
  const std::string base = ::testing::TempDir() + "phasor_run_" + std::to_string(getpid()) + "_" +
                           std::to_string(++counter);
  const std::string cmd = std::string(phasor::testing::kCliPath) + " " + args + " > " + base +
                          ".out 2> " + base + ".err < /dev/null";
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadFile(base + ".out");
  r.err = ReadFile(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

// One line, beginning "phasor: error:".
inline void ExpectOneErrorLine(const RunResult& r) {
  EXPECT_EQ(r.err.rfind("phasor: error:", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

}  // namespace phasor::testing

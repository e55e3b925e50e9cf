// A tiny sentence-transformers folder for CLI tests: tests/data/hf/st_mean
// (a BERT of 32 features, 40 positions; modules.json: Transformer, mean
// Pooling, Normalize) with the hand-made tokenizer of
// tests/data/tokenizers/hand (ids: [CLS] 2, [SEP] 3, hello 5, world 6, ##s 7,
// "," 10, "!" 11, the 12) and the max_seq_length asked for.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "tests/support/paths.h"
#include "tests/support/run.h"

namespace phasor::testing {

// A fresh folder under the test temp dir. max_seq_length 0: no
// sentence_bert_config.json; st false: no modules.json (a plain Hugging Face
// folder).
inline std::string MakeStFolder(const std::string& name, int max_seq_length, bool st = true) {
  const std::string src = std::string(phasor::testing::kTestDataDir) + "/hf/st_mean";
  const std::string dir = ::testing::TempDir() + "st_folder_" + name;
  const std::string cmd = "rm -rf " + dir + " && mkdir -p " + dir + " && cp -r " + src +
                          "/config.json " + src + "/model.safetensors " + src + "/1_Pooling " +
                          (st ? src + "/modules.json " : std::string()) + dir + "/ && cp " +
                          phasor::testing::kTestDataDir + "/tokenizers/hand/tokenizer.json " + dir +
                          "/";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  if (max_seq_length > 0) {
    WriteFile(dir + "/sentence_bert_config.json",
              "{\"max_seq_length\": " + std::to_string(max_seq_length) + "}");
  }
  return dir;
}

// Runs "sh -c" on a command line in which PHASOR stands for the built CLI
// (for pipes and process substitution: bash).
inline RunResult RunShell(std::string command) {
  for (size_t at; (at = command.find("PHASOR")) != std::string::npos;)
    command.replace(at, 6, phasor::testing::kCliPath);
  static int counter = 0;
  const std::string base = ::testing::TempDir() + "phasor_shell_" + std::to_string(getpid()) + "_" +
                           std::to_string(++counter);
  const std::string script = base + ".sh";
  WriteFile(script, command + "\n");
  const int status =
      std::system(("bash " + script + " > " + base + ".out 2> " + base + ".err").c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadFile(base + ".out");
  r.err = ReadFile(base + ".err");
  std::remove(script.c_str());
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

}  // namespace phasor::testing

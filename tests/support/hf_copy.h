// A copy of a golden checkpoint folder of tests/data/hf whose config.json a
// test edits, then expects the load to fail with a given message: the base of
// the hostile-input fixtures of the architecture tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "engine/error.h"
#include "models/phasor.h"
#include "tests/support/paths.h"

namespace phasor::testing {

inline std::string HfDir(const std::string& name) {
  return std::string(phasor::testing::kTestDataDir) + "/hf/" + name;
}

class HfCopyTest : public ::testing::Test {
 protected:
  // Copies case `name` to a fresh folder of the test's temporary directory.
  void CopyCase(const std::string& name) {
    dir_ = ::testing::TempDir() + name + "_copy";
    std::filesystem::remove_all(dir_);
    std::filesystem::copy(HfDir(name), dir_, std::filesystem::copy_options::recursive);
    std::ifstream in(dir_ + "/config.json");
    config_.assign(std::istreambuf_iterator<char>(in), {});
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // config.json as copied, with from replaced by to.
  void WriteConfig(const std::string& from, const std::string& to) {
    std::string text = config_;
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    std::ofstream(dir_ + "/config.json") << text;
  }
  void ExpectLoadError(const std::string& fragment) {
    try {
      Model::Load(dir_);
      ADD_FAILURE() << "loaded; expected an error with " << fragment;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  }
  std::string dir_, config_;
};

}  // namespace phasor::testing

// Replays every saved fuzz finding (regressions/<target>_<what>) and the seed
// corpus (corpus/<target>/) through the fuzz targets' own bodies (harness.h),
// under the fuzzers' memory limit. Each input must load or fail with
// phasor::Error: no crash, no sanitizer report, no broken invariant.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/memory_limit.h"
#include "tests/fuzz/harness.h"

namespace phasor::fuzz {
namespace {

namespace fs = std::filesystem;

const std::string kFuzzDir = std::string(PHASOR_TEST_DATA) + "/../fuzz";

using Target = std::function<void(const uint8_t*, size_t)>;

const std::map<std::string, Target>& Targets() {
  static const std::map<std::string, Target> targets = {{"safetensors", FuzzSafetensors},
                                                        {"config", FuzzConfig},
                                                        {"tokens", FuzzTokens},
                                                        {"model", FuzzModel}};
  return targets;
}

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<fs::path> FilesIn(const fs::path& dir) {
  std::vector<fs::path> files;
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().filename().string()[0] != '.') {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The fuzzers' memory limit for the duration of a test.
class FuzzRegressionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = MemoryLimit();
    SetMemoryLimit(kFuzzMemoryLimit);
  }
  void TearDown() override { SetMemoryLimit(saved_); }

  static void Replay(const std::string& target, const fs::path& file) {
    SCOPED_TRACE(file.string());
    const std::string bytes = ReadBytes(file);
    EXPECT_NO_THROW(
        Targets().at(target)(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  }

 private:
  uint64_t saved_ = 0;
};

TEST_F(FuzzRegressionTest, SavedFindingsFailCleanly) {
  const std::vector<fs::path> files = FilesIn(kFuzzDir + "/regressions");
  ASSERT_FALSE(files.empty()) << "no files in " << kFuzzDir << "/regressions";
  for (const fs::path& file : files) {
    const std::string name = file.filename().string();
    const std::string target = name.substr(0, name.find('_'));
    ASSERT_TRUE(Targets().count(target)) << name << ": expected a name <target>_<what>";
    Replay(target, file);
  }
}

TEST_F(FuzzRegressionTest, SeedCorpusReplays) {
  for (const auto& [target, fn] : Targets()) {
    const std::vector<fs::path> files = FilesIn(kFuzzDir + "/corpus/" + target);
    EXPECT_FALSE(files.empty()) << "no seeds for " << target;
    for (const fs::path& file : files) Replay(target, file);
  }
}

// The valid model seeds must load, or the model fuzzer would only ever see
// errors (a drift between make_corpus.py and the loader).
TEST_F(FuzzRegressionTest, ValidModelSeedsLoadAndRun) {
  int loaded = 0;
  for (const fs::path& file : FilesIn(kFuzzDir + "/corpus/model")) {
    if (file.filename().string().rfind("valid_", 0) != 0) continue;
    SCOPED_TRACE(file.string());
    const std::string bytes = ReadBytes(file);
    const ModelInput in =
        SplitModelInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    const std::string dir = ScratchDir() + "/seed_model";
    fs::create_directories(dir);
    WriteFile(dir + "/config.json", in.config.data(), in.config.size());
    WriteFile(dir + "/model.safetensors", in.safetensors.data(), in.safetensors.size());
    std::unique_ptr<Encoder> enc;
    ASSERT_NO_THROW(enc = Encoder::Load(dir, in.mode));
    ++loaded;
  }
  EXPECT_GE(loaded, 4);
}

}  // namespace
}  // namespace phasor::fuzz

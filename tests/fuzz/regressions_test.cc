// Replays every saved fuzz finding (regressions/<target>_<what>) and the seed
// corpus (corpus/<target>/) through the fuzz targets' own bodies (harness.h),
// under the fuzzers' memory limit: no crash, no sanitizer report, no broken
// invariant, and the outcome recorded in outcomes.txt when the input was saved
// (refused with a given message, accepted, or run to finite output).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/memory_limit.h"
#include "tests/fuzz/harness.h"
#include "tests/support/paths.h"

namespace phasor::fuzz {
namespace {

namespace fs = std::filesystem;

const std::string kFuzzDir = std::string(phasor::testing::kTestDataDir) + "/../fuzz";

using Target = std::function<Outcome(const uint8_t*, size_t)>;

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

struct Expected {
  Outcome::Kind kind;
  std::string message;  // kRefused: a part of the message
};

Outcome::Kind KindNamed(const std::string& name) {
  for (Outcome::Kind k : {Outcome::Kind::kRefused, Outcome::Kind::kAccepted,
                          Outcome::Kind::kRanFinite, Outcome::Kind::kRanNonFinite}) {
    if (name == ToString(k)) return k;
  }
  throw std::runtime_error("outcomes.txt: unknown outcome '" + name + "'");
}

// outcomes.txt: "PATH OUTCOME [MESSAGE]" a line, PATH relative to tests/fuzz.
const std::map<std::string, Expected>& ExpectedOutcomes() {
  static const std::map<std::string, Expected> outcomes = [] {
    std::map<std::string, Expected> m;
    std::ifstream in(kFuzzDir + "/outcomes.txt");
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream fields(line);
      std::string path, kind, message;
      fields >> path >> kind;
      std::getline(fields >> std::ws, message);
      m[path] = {KindNamed(kind), message};
    }
    return m;
  }();
  return outcomes;
}

// The fuzzers' memory limit for the duration of a test.
class FuzzRegressionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = MemoryLimit();
    SetMemoryLimit(kFuzzMemoryLimit);
  }
  void TearDown() override { SetMemoryLimit(saved_); }

  // rel: the input's path relative to tests/fuzz.
  static void Replay(const std::string& target, const std::string& rel) {
    SCOPED_TRACE(rel);
    const std::string bytes = ReadBytes(kFuzzDir + "/" + rel);
    Outcome got;
    ASSERT_NO_THROW(
        got = Targets().at(target)(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    const std::string actual =
        rel + " " + ToString(got.kind) + (got.message.empty() ? "" : " " + got.message);
    const auto it = ExpectedOutcomes().find(rel);
    ASSERT_NE(it, ExpectedOutcomes().end()) << "no line in outcomes.txt; this run: " << actual;
    EXPECT_EQ(ToString(got.kind), std::string(ToString(it->second.kind))) << actual;
    EXPECT_NE(got.message.find(it->second.message), std::string::npos)
        << "expected a message with '" << it->second.message << "'; this run: " << actual;
  }

 private:
  uint64_t saved_ = 0;
};

TEST_F(FuzzRegressionTest, SavedFindingsHaveTheirRecordedOutcome) {
  const std::vector<fs::path> files = FilesIn(kFuzzDir + "/regressions");
  ASSERT_FALSE(files.empty()) << "no files in " << kFuzzDir << "/regressions";
  for (const fs::path& file : files) {
    const std::string name = file.filename().string();
    const std::string target = name.substr(0, name.find('_'));
    ASSERT_TRUE(Targets().count(target)) << name << ": expected a name <target>_<what>";
    Replay(target, "regressions/" + name);
  }
}

TEST_F(FuzzRegressionTest, SeedCorpusHasItsRecordedOutcome) {
  for (const auto& [target, fn] : Targets()) {
    const std::vector<fs::path> files = FilesIn(kFuzzDir + "/corpus/" + target);
    EXPECT_FALSE(files.empty()) << "no seeds for " << target;
    for (const fs::path& file : files)
      Replay(target, "corpus/" + target + "/" + file.filename().string());
  }
}

// The valid model seeds must load and run to finite output, or the model
// fuzzer would only ever see errors (a drift between make_corpus.py and the
// loader); and every line of outcomes.txt names an input that exists.
TEST(FuzzOutcomesTest, ValidModelSeedsRunAndEveryLineNamesAnInput) {
  int valid = 0;
  for (const auto& [rel, expected] : ExpectedOutcomes()) {
    EXPECT_TRUE(fs::is_regular_file(kFuzzDir + "/" + rel)) << rel;
    if (rel.rfind("corpus/model/valid_", 0) == 0) {
      EXPECT_EQ(expected.kind, Outcome::Kind::kRanFinite) << rel;
      ++valid;
    }
  }
  EXPECT_GE(valid, 4);
}

}  // namespace
}  // namespace phasor::fuzz

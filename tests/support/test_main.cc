// The main of phasor_tests: GoogleTest's, with one addition. Every test runs
// with a fresh, empty directory of its own as ::testing::TempDir() (through
// TEST_TMPDIR), and as TMPDIR for the programs it starts; the directory is made
// under the system's temporary directory when the test starts and removed with
// what is in it when the test ends. A file that something else left in /tmp
// under a name a test uses (t.txt, out.npy) can then neither pass for one the
// test wrote nor make it fail, and tests running side by side never share a
// path.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

namespace {

class FreshTempDirPerTest : public ::testing::EmptyTestEventListener {
 public:
  explicit FreshTempDirPerTest(std::string parent) : parent_(std::move(parent)) {}

  void OnTestStart(const ::testing::TestInfo&) override {
    std::string pattern = parent_ + "/phasor_test_XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      std::fprintf(stderr, "cannot make a directory %s: %s\n", pattern.c_str(),
                   std::strerror(errno));
      std::abort();
    }
    dir_ = pattern;
    setenv("TEST_TMPDIR", dir_.c_str(), 1);
    setenv("TMPDIR", dir_.c_str(), 1);
  }

  void OnTestEnd(const ::testing::TestInfo&) override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    setenv("TEST_TMPDIR", parent_.c_str(), 1);
    setenv("TMPDIR", parent_.c_str(), 1);
    dir_.clear();
  }

 private:
  std::string parent_;  // the system's temporary directory
  std::string dir_;     // the running test's
};

// $TMPDIR (or $TEST_TMPDIR) if set, else /tmp, without a trailing slash.
std::string SystemTempDir() {
  std::string dir = ::testing::TempDir();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(new FreshTempDirPerTest(SystemTempDir()));
  return RUN_ALL_TESTS();
}

// OutputFile: a file appears complete under its name or not at all; an
// earlier file of that name is left as it was by anything short of Commit.
// (Signals and the file-size limit: tests/tools/output_safety_cli_test.cc.)
#include "engine/output_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "engine/error.h"
#include "engine/npy.h"
#include "tests/support/write_file.h"

namespace phasor {
namespace {

namespace fs = std::filesystem;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "phasor_output_file_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern + "/";
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void Put(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
  // The names in the directory, temporary files included.
  std::set<std::string> Names() const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.insert(e.path().filename().string());
    return names;
  }

  std::string dir_;
};

TEST_F(OutputFileTest, CommitReplacesTheEarlierFileAndLeavesNothingElse) {
  Put(dir_ + "out.txt", "earlier");
  {
    OutputFile f(dir_ + "out.txt");
    f.Write("new ");
    EXPECT_EQ(Read(dir_ + "out.txt"), "earlier");  // nothing in place before Commit
    EXPECT_EQ(Names().size(), 2u);                 // the target and one temporary file
    f.Write("content");
    f.Commit();
  }
  EXPECT_EQ(Read(dir_ + "out.txt"), "new content");
  EXPECT_EQ(Names(), std::set<std::string>{"out.txt"});
  EXPECT_EQ(OpenOutputFiles(), 0);
}

TEST_F(OutputFileTest, WithoutCommitTheEarlierFileStaysAndTheTemporaryGoes) {
  Put(dir_ + "out.txt", "earlier");
  {
    OutputFile f(dir_ + "out.txt");
    f.Write(std::string(3 << 20, 'x'));  // past the buffer: bytes on disk
    EXPECT_EQ(OpenOutputFiles(), 1);
  }
  EXPECT_EQ(Read(dir_ + "out.txt"), "earlier");
  EXPECT_EQ(Names(), std::set<std::string>{"out.txt"});
  EXPECT_EQ(OpenOutputFiles(), 0);
}

TEST_F(OutputFileTest, AnExceptionDuringAWriteLeavesNoFile) {
  // WriteNpy of a shape larger than its data is not reachable; a failing
  // writer is: NpyWriter asked for values outside its array.
  Put(dir_ + "a.npy", "earlier");
  {
    NpyWriter w(dir_ + "a.npy", {2, 3});
    const float v[4] = {1, 2, 3, 4};
    EXPECT_THROW(w.WriteValues(4, v, 4), Error);
  }
  EXPECT_EQ(Read(dir_ + "a.npy"), "earlier");
  EXPECT_EQ(Names(), std::set<std::string>{"a.npy"});
}

TEST_F(OutputFileTest, WritesOfEverySizeArriveInOrder) {
  // Sizes around the 1 MiB buffer: below, across and far above it.
  std::string want;
  {
    OutputFile f(dir_ + "big.bin");
    uint32_t seed = 7;
    for (size_t n : {size_t{1}, size_t{1000}, size_t{(1 << 20) - 3}, size_t{5}, size_t{3 << 20},
                     size_t{1 << 20}, size_t{17}}) {
      std::string piece(n, '\0');
      for (char& c : piece) c = static_cast<char>((seed = seed * 1103515245u + 12345u) >> 24);
      f.Write(piece);
      want += piece;
    }
    f.Commit();
  }
  EXPECT_TRUE(Read(dir_ + "big.bin") == want);
}

TEST_F(OutputFileTest, ALinkKeepsItsLinkAndItsTargetIsReplaced) {
  Put(dir_ + "real.txt", "earlier");
  fs::create_symlink("real.txt", dir_ + "link.txt");
  testing::WriteFileAtomically(dir_ + "link.txt", "new");
  EXPECT_TRUE(fs::is_symlink(dir_ + "link.txt"));
  EXPECT_EQ(Read(dir_ + "real.txt"), "new");
  EXPECT_EQ(Names(), (std::set<std::string>{"link.txt", "real.txt"}));
}

TEST_F(OutputFileTest, AReplacedFileKeepsItsPermissionsANewOneFollowsTheUmask) {
  Put(dir_ + "private.txt", "earlier");
  ASSERT_EQ(::chmod((dir_ + "private.txt").c_str(), 0600), 0);
  testing::WriteFileAtomically(dir_ + "private.txt", "new");
  struct stat st {};
  ASSERT_EQ(::stat((dir_ + "private.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);

  const mode_t mask = ::umask(022);
  testing::WriteFileAtomically(dir_ + "fresh.txt", "new");
  ::umask(mask);
  ASSERT_EQ(::stat((dir_ + "fresh.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
}

TEST_F(OutputFileTest, CommitTogetherPutsEveryFileInPlace) {
  Put(dir_ + "a.txt", "earlier a");
  Put(dir_ + "b.txt", "earlier b");
  OutputFile a(dir_ + "a.txt"), b(dir_ + "b.txt");
  a.Write("new a");
  b.Write("new b");
  CommitTogether({&a, &b});
  EXPECT_EQ(Read(dir_ + "a.txt"), "new a");
  EXPECT_EQ(Read(dir_ + "b.txt"), "new b");
  EXPECT_EQ(Names(), (std::set<std::string>{"a.txt", "b.txt"}));
}

TEST_F(OutputFileTest, PathsThatCannotBeWrittenAreNamed) {
  try {
    OutputFile f(dir_ + "no_such_dir/out.txt");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write " + dir_ + "no_such_dir/out.txt: No such file or directory");
  }
  fs::create_directory(dir_ + "sub");
  try {
    OutputFile f(dir_ + "sub");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write " + dir_ + "sub: Is a directory");
  }
  EXPECT_EQ(Names(), std::set<std::string>{"sub"});
  EXPECT_EQ(OpenOutputFiles(), 0);
}

TEST_F(OutputFileTest, ALongNameStillHasATemporaryFileBesideIt) {
  const std::string name(250, 'n');  // the temporary name is cut to stay within NAME_MAX
  testing::WriteFileAtomically(dir_ + name, "new");
  EXPECT_EQ(Read(dir_ + name), "new");
  EXPECT_EQ(Names(), std::set<std::string>{name});
}

}  // namespace
}  // namespace phasor

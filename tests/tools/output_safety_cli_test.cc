// No run of the CLI, interrupted, failed or misused, destroys or half-writes a
// file: every writing command under SIGINT, SIGTERM and SIGHUP in the middle
// of its output, a write past the file-size limit, and outputs that name one
// another or an input.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/paths.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

namespace fs = std::filesystem;

// A directory of the test's own, removed after it, and beside it the log of
// the command a test starts.
class OwnDir {
 public:
  OwnDir() {
    std::string pattern = ::testing::TempDir() + "phasor_safety_XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern + "/";
    log_ = pattern + ".log";
  }
  ~OwnDir() {
    fs::remove_all(path_);
    fs::remove(log_);
  }
  const std::string& path() const { return path_; }
  const std::string& log() const { return log_; }

 private:
  std::string path_, log_;
};

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Put(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Every file under dir (recursively) with its content.
std::map<std::string, std::string> Snapshot(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) files[e.path().string()] = Read(e.path().string());
  }
  return files;
}

bool HasTemporaryFile(const std::string& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 8 && name.compare(name.size() - 8, 8, ".partial") == 0) return true;
  }
  return false;
}

// Starts the CLI with args, stdout and stderr into dir's log.
// commit_delay_ms > 0: its outputs wait that long before they are put in place.
// file_limit > 0: RLIMIT_FSIZE, bytes.
pid_t Start(const std::vector<std::string>& args, const OwnDir& dir, int commit_delay_ms,
            rlim_t file_limit = 0) {
  // Everything the child needs is made here: after fork, a process that had
  // threads may only make async-signal-safe calls.
  std::vector<std::string> strings = {phasor::testing::kCliPath};
  strings.insert(strings.end(), args.begin(), args.end());
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  if (commit_delay_ms > 0)
    env.push_back("PHASOR_TEST_COMMIT_DELAY_MS=" + std::to_string(commit_delay_ms));
  std::vector<char*> argv, envp;
  for (std::string& a : strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int log = ::open(dir.log().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log < 0 || ::dup2(log, 1) < 0 || ::dup2(log, 2) < 0) ::_exit(127);
  if (file_limit > 0) {
    const struct rlimit limit = {file_limit, file_limit};
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ::execve(argv[0], argv.data(), envp.data());
  ::_exit(127);
}

// waitpid's status, waiting at most 120 s (then the child is killed: a failure).
int Wait(pid_t pid) {
  int status = 0;
  for (int i = 0; i < 12000; ++i) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  ADD_FAILURE() << "the command did not end within 120 s";
  return status;
}

// Waits until a temporary output file appears under dir, or the process ends.
bool WaitForTemporaryFile(pid_t pid, const OwnDir& dir) {
  for (int i = 0; i < 12000; ++i) {
    if (HasTemporaryFile(dir.path())) return true;
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      ADD_FAILURE() << "the command ended (status " << status << ") before writing:\n"
                    << Read(dir.log());
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "no temporary file appeared under " << dir.path() << " within 120 s";
  return false;
}

// A command that writes files, each named under the directory DIR.
struct WritingCommand {
  std::string name;
  std::string args;                  // DIR stands for the directory
  std::vector<std::string> outputs;  // relative to DIR
};

std::vector<std::string> Args(const WritingCommand& c, const std::string& dir) {
  std::vector<std::string> args;
  std::istringstream in(c.args);
  for (std::string a; in >> a;) {
    for (size_t at; (at = a.find("DIR/")) != std::string::npos;) a.replace(at, 4, dir);
    args.push_back(a);
  }
  return args;
}

const WritingCommand kWritingCommands[] = {
    {"EncodePadded", "encode --tokens 3,14,15,92 --output DIR/out.npy", {"out.npy"}},
    {"EncodePacked",
     "encode --tokens 3,14,15 --layout packed --output DIR/out.npy --offsets DIR/off.npy",
     {"out.npy", "off.npy"}},
    {"EncodePooled", "encode --tokens 3,14 --pool mean --output DIR/out.npy", {"out.npy"}},
    {"Embed", "embed --seq-len 100 --d-model 16 --vocab 50 --output DIR/out.npy", {"out.npy"}},
    {"PeNpy", "pe --d-model 16 --length 8 --output DIR/out.npy", {"out.npy"}},
    {"PeCsv", "pe --d-model 16 --length 8 --output DIR/out.csv", {"out.csv"}},
    {"PeHeatmap", "pe --d-model 16 --length 8 --output DIR/out.png", {"out.png"}},
    {"PeSimilarity", "pe --d-model 16 --length 8 --similarity DIR/sim.png", {"sim.png"}},
    {"BenchPeChart",
     "bench-pe --lengths 64 --d-model 16 --min-seconds 0.001 --png DIR/chart.png",
     {"chart.png"}},
    {"MakeToy",
     "make-toy --out DIR/model --force",
     {"model/config.json", "model/model.safetensors"}},
};

struct SignalCase {
  WritingCommand command;
  int sig;
};

std::string CaseName(const ::testing::TestParamInfo<SignalCase>& info) {
  const char* sig = info.param.sig == SIGINT ? "Int" : info.param.sig == SIGTERM ? "Term" : "Hup";
  return info.param.command.name + sig;
}

std::vector<SignalCase> SignalCases() {
  std::vector<SignalCase> cases;
  for (const WritingCommand& c : kWritingCommands) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) cases.push_back({c, sig});
  }
  return cases;
}

class InterruptedOutputTest : public ::testing::TestWithParam<SignalCase> {};

// The signal arrives while the outputs are complete in their temporary files
// but not yet in place (the commit held back): the earlier files stay as they
// were, no temporary file is left, and the process ends by that signal.
TEST_P(InterruptedOutputTest, LeavesTheEarlierFilesAndNoTemporaryFile) {
  const SignalCase& c = GetParam();
  OwnDir dir;
  fs::create_directory(dir.path() + "model");
  for (const std::string& out : c.command.outputs) Put(dir.path() + out, "earlier " + out);
  const auto before = Snapshot(dir.path());
  const pid_t pid = Start(Args(c.command, dir.path()), dir, 60000);
  ASSERT_TRUE(WaitForTemporaryFile(pid, dir));
  ::kill(pid, c.sig);
  const int status = Wait(pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == c.sig) << "status " << status << ":\n"
                                                                << Read(dir.log());
  EXPECT_EQ(Snapshot(dir.path()), before);
  EXPECT_FALSE(HasTemporaryFile(dir.path()));
}

INSTANTIATE_TEST_SUITE_P(EveryWritingCommand, InterruptedOutputTest,
                         ::testing::ValuesIn(SignalCases()), CaseName);

// Without the commit held back: encode writes its output batch by batch from
// the start of the run, so a signal lands in the middle of the writing.
TEST(InterruptedOutput, EncodeInTheMiddleOfItsRows) {
  OwnDir dir;
  std::string lines;
  for (int i = 0; i < 4000; ++i) lines += std::to_string(1 + i % 900) + " 7 8 9 10 11\n";
  Put(dir.path() + "ids.txt", lines);
  Put(dir.path() + "out.npy", "earlier");
  const auto before = Snapshot(dir.path());
  const pid_t pid = Start(Args({"",
                                "encode --tokens-file DIR/ids.txt --batch-tokens 6 --repeat 1000 "
                                "--threads 1 --output DIR/out.npy",
                                {}},
                               dir.path()),
                          dir, 0);
  ASSERT_TRUE(WaitForTemporaryFile(pid, dir));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ::kill(pid, SIGINT);
  const int status = Wait(pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << status;
  EXPECT_EQ(Snapshot(dir.path()), before);
  EXPECT_FALSE(HasTemporaryFile(dir.path()));
}

// A write past the file-size limit (ulimit -f) fails like any other write: one
// error line naming the file, exit 1, the earlier file as it was. The CSV fits
// the writer's buffer, so its bytes first reach the disk at the commit: a
// commit that put the file in place before writing them out would be seen.
TEST(FailedOutput, AWritePastTheFileSizeLimitLeavesTheEarlierFile) {
  const std::pair<std::string, std::string> cases[] = {
      {"pe --d-model 64 --length 400 --output DIR/out.csv", "out.csv"},   // ~300 KB, buffered
      {"pe --d-model 64 --length 4000 --output DIR/out.csv", "out.csv"},  // ~3 MB, streamed
      {"pe --d-model 64 --length 4000 --output DIR/out.npy", "out.npy"},
      {"encode --tokens 3,14,15 --output DIR/out.npy --stage embeddings", "out.npy"},
  };
  for (const auto& [args, out] : cases) {
    OwnDir dir;
    Put(dir.path() + out, "earlier");
    const auto before = Snapshot(dir.path());
    // The toy encoder's 3 x 256 output is 3 KB: 2 KB is too little for it.
    const rlim_t limit = out == "out.npy" && args[0] == 'e' ? 2048 : 64 * 1024;
    const int status = Wait(Start(Args({"", args, {}}, dir.path()), dir, 0, limit));
    const std::string log = Read(dir.log());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << args << ": " << log;
    EXPECT_NE(log.find("phasor: error: cannot write " + dir.path() + out + ": File too large"),
              std::string::npos)
        << args << ": " << log;
    EXPECT_EQ(Snapshot(dir.path()), before) << args;
    EXPECT_FALSE(HasTemporaryFile(dir.path())) << args;
  }
}

// Outputs that name one another or an input are refused before any work,
// however the path is spelt, and nothing is written.
TEST(SamePathOutput, IsAUsageErrorNamingBothOptions) {
  OwnDir dir;
  const std::string d = dir.path();
  Put(d + "same.npy", "earlier");
  Put(d + "ids.npy", "3 14 15\n");  // a tokens file, whatever its name
  fs::create_directory(d + "sub");
  fs::create_symlink("ids.npy", d + "link.npy");
  fs::create_hard_link(d + "ids.npy", d + "hard.npy");
  Put(d + "a.png", "earlier");
  const std::pair<std::string, std::string> cases[] = {
      {"encode --tokens 3 --layout packed --output DIR/same.npy --offsets DIR/same.npy",
       "--output and --offsets name the same file (" + d + "same.npy)"},
      {"encode --tokens 3 --layout packed --output DIR/sub/../same.npy --offsets DIR/same.npy",
       "--output and --offsets name the same file"},
      {"encode --tokens 3 --layout packed --output DIR/new.npy --offsets DIR/sub/../new.npy",
       "--output and --offsets name the same file"},
      {"encode --tokens-file DIR/ids.npy --output DIR/ids.npy",
       "--output names the input of --tokens-file (" + d + "ids.npy)"},
      {"encode --tokens-file DIR/ids.npy --output DIR/link.npy",
       "--output names the input of --tokens-file"},
      {"encode --tokens-file DIR/ids.npy --output DIR/hard.npy",
       "--output names the input of --tokens-file"},
      {"encode --tokens-file DIR/ids.npy --layout packed --output DIR/o.npy --offsets "
       "DIR/./ids.npy",
       "--offsets names the input of --tokens-file"},
      {"pe --d-model 8 --length 4 --output DIR/a.png --similarity DIR/sub/../a.png",
       "--output and --similarity name the same file"},
  };
  const auto before = Snapshot(d);
  for (const auto& [args, message] : cases) {
    std::vector<std::string> argv = Args({"", args, {}}, d);
    std::string line;
    for (const std::string& a : argv) line += a + " ";
    const auto r = testing::RunPhasor(line);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    testing::ExpectOneErrorLine(r);
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(Snapshot(d), before) << args;
  }
}

}  // namespace
}  // namespace phasor

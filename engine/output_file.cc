#include "engine/output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "engine/error.h"

namespace phasor {
namespace {

// The temporary files a signal handler must remove: a fixed table, so that
// the handler reads it without locks or allocation. A slot's path is written
// while its state is kFilling and read by the handler only once it is kLive.
constexpr int kSlots = 64;
enum SlotState : int { kFree = 0, kFilling = 1, kLive = 2 };
struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads slots lock-free");
Slot g_slots[kSlots];

int Register(const std::string& temp) {
  if (temp.size() >= PATH_MAX) return -1;  // open fails on it anyway
  for (int s = 0; s < kSlots; ++s) {
    int expected = kFree;
    if (g_slots[s].state.compare_exchange_strong(expected, kFilling)) {
      std::memcpy(g_slots[s].path, temp.c_str(), temp.size() + 1);
      g_slots[s].state.store(kLive);
      return s;
    }
  }
  throw Error("cannot write " + temp + ": more than " + std::to_string(kSlots) +
              " output files open at once");
}

void Unregister(int slot) {
  if (slot >= 0) g_slots[slot].state.store(kFree);
}

void RemoveTemporaryFiles(int sig) {
  for (Slot& s : g_slots) {
    if (s.state.load() == kLive) ::unlink(s.path);
  }
  // SA_RESETHAND has restored the default action: the signal, raised again,
  // ends the process once this handler returns (it is blocked until then).
  ::raise(sig);
}

// "dir/.name.PID-N.partial" beside target; the name part cut so that the
// whole stays within NAME_MAX.
std::string TemporaryName(const std::string& target, int attempt) {
  static std::atomic<int> counter{0};
  const size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  std::string name = slash == std::string::npos ? target : target.substr(slash + 1);
  if (name.size() > 180) name.resize(180);
  return dir + "." + name + "." + std::to_string(::getpid()) + "-" +
         std::to_string(counter.fetch_add(1) + attempt) + ".partial";
}

// What the rename replaces: the file a symbolic link points to, else path.
std::string ResolveTarget(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr) return path;  // a dangling link
  return resolved;
}

constexpr size_t kBufferBytes = size_t{1} << 20;

}  // namespace

OutputFile::OutputFile(const std::string& path) : path_(path), target_(ResolveTarget(path)) {
  struct stat st {};
  const bool exists = ::stat(target_.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) Fail(EISDIR);
  for (int attempt = 0; fd_ < 0; ++attempt) {
    temp_ = TemporaryName(target_, attempt);
    slot_ = Register(temp_);
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) break;
    const int err = errno;
    Unregister(slot_);
    slot_ = -1;
    if (err != EEXIST || attempt >= 100) {
      temp_.clear();
      Fail(err);
    }
  }
  // A file replaced keeps its permission bits, as it would if written in place.
  if (exists && ::fchmod(fd_, st.st_mode & 07777) != 0) Fail(errno);
  buffer_.reserve(kBufferBytes);
}

OutputFile::~OutputFile() { Discard(); }

void OutputFile::Discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
  Unregister(slot_);
  slot_ = -1;
}

void OutputFile::Fail(int err) {
  Discard();
  throw Error("cannot write " + path_ + ": " + std::strerror(err));
}

void OutputFile::WriteOut(int64_t offset, const char* data, size_t bytes) {
  if (fd_ < 0) throw Error("cannot write " + path_ + ": the file is already closed");
  while (bytes > 0) {
    const ssize_t n = ::pwrite(fd_, data, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) Fail(n < 0 ? errno : EIO);
    data += n;
    offset += n;
    bytes -= static_cast<size_t>(n);
  }
}

void OutputFile::Flush() {
  WriteOut(end_, buffer_.data(), buffer_.size());
  end_ += static_cast<int64_t>(buffer_.size());
  buffer_.clear();
}

void OutputFile::Write(const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  if (buffer_.size() + bytes > kBufferBytes) Flush();
  if (bytes >= kBufferBytes) {
    WriteOut(end_, p, bytes);
    end_ += static_cast<int64_t>(bytes);
    return;
  }
  buffer_.append(p, bytes);
}

void OutputFile::WriteAt(int64_t offset, const void* data, size_t bytes) {
  WriteOut(offset, static_cast<const char*>(data), bytes);
}

void OutputFile::Resize(int64_t bytes) {
  if (fd_ < 0 || ::ftruncate(fd_, static_cast<off_t>(bytes)) != 0) Fail(fd_ < 0 ? EBADF : errno);
}

void OutputFile::Commit() {
  Finish();
  Place();
}

void OutputFile::Finish() {
  if (fd_ < 0) throw Error("cannot write " + path_ + ": the file is already closed");
  Flush();
  if (::fsync(fd_) != 0) Fail(errno);
  if (const char* delay = std::getenv("PHASOR_TEST_COMMIT_DELAY_MS")) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoll(delay)));
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) Fail(errno);
}

void OutputFile::Place() {
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) Fail(errno);
  temp_.clear();  // it is the target now
  Unregister(slot_);
  slot_ = -1;
}

void CommitTogether(std::initializer_list<OutputFile*> files) {
  for (OutputFile* f : files) f->Finish();
  sigset_t fatal, old;
  sigemptyset(&fatal);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&fatal, sig);
  pthread_sigmask(SIG_BLOCK, &fatal, &old);
  try {
    for (OutputFile* f : files) f->Place();
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void InstallOutputCleanup() {
  struct sigaction action {};
  action.sa_handler = RemoveTemporaryFiles;
  action.sa_flags = SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &action, nullptr);
  }
  // A write past the file-size limit (ulimit -f) then fails with EFBIG and is
  // reported like any other, instead of killing the process mid-file.
  ::signal(SIGXFSZ, SIG_IGN);
}

int OpenOutputFiles() {
  int n = 0;
  for (const Slot& s : g_slots) n += s.state.load() == kLive;
  return n;
}

}  // namespace phasor

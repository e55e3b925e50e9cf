// Files that appear complete under their name or not at all.
//
// Every file phasor writes goes through OutputFile: the bytes go to a
// temporary file in the target's own directory (".NAME.PID-N.partial", so the
// final rename never crosses a file system), and Commit() writes out what is
// buffered, syncs the file to disk and renames it over the target. Until then
// an earlier file of that name is untouched; an OutputFile destroyed without
// Commit (an error, an exception) removes its temporary file. With the
// handlers of InstallOutputCleanup in place, SIGINT, SIGTERM and SIGHUP remove
// every temporary file still open and then end the process by that signal
// (exit status 128 + n in a shell).
//
//   OutputFile f("table.csv");  // Error "cannot write table.csv: ..." now,
//   f.Write(text.data(), text.size());
//   f.Commit();                 // or on the first failed write
//
// A target that is a symbolic link keeps its link: the file it points to is
// replaced. A target that exists keeps its permission bits; a new one gets
// 0666 less the umask, as any file a program creates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace phasor {

class OutputFile {
 public:
  // Creates the temporary file beside path. Throws Error "cannot write PATH:
  // reason" if it cannot.
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Appends bytes (buffered; written out when the buffer fills and at Commit).
  void Write(const void* data, size_t bytes);
  void Write(const std::string& bytes) { Write(bytes.data(), bytes.size()); }

  // Writes bytes at offset, at once and unbuffered: for files filled in any
  // order (engine/npy.h NpyWriter). Do not mix with Write in one file.
  void WriteAt(int64_t offset, const void* data, size_t bytes);

  // Sets the file's size (bytes never written read as 0: a sparse file).
  void Resize(int64_t bytes);

  // Writes out the buffer, syncs, and renames the file over the target. Throws
  // Error naming the path if any step fails, removing the temporary file.
  // Once committed, the object only closes. For tests of interruption: with
  // PHASOR_TEST_COMMIT_DELAY_MS=N in the environment, waits N ms before the
  // rename, the file complete but not yet in place.
  void Commit();

  const std::string& path() const { return path_; }

 private:
  friend void CommitTogether(std::initializer_list<OutputFile*> files);
  void Finish();  // Commit's steps before the rename
  void Place();   // the rename
  void Flush();
  void WriteOut(int64_t offset, const char* data, size_t bytes);
  [[noreturn]] void Fail(int err);
  void Discard();

  std::string path_;    // as given, for messages
  std::string target_;  // what the rename replaces (a link's target)
  std::string temp_;
  int fd_ = -1;
  int slot_ = -1;  // in the registry the signal handlers read
  std::string buffer_;
  int64_t end_ = 0;  // bytes appended and written out
};

// Commits files that belong together (an array and its offsets, a model's
// config and weights): each is written out and synced first, then all are
// renamed with SIGINT, SIGTERM and SIGHUP held back, so that a signal finds
// either all of them in place or none.
void CommitTogether(std::initializer_list<OutputFile*> files);

// Installs handlers for SIGINT, SIGTERM and SIGHUP (each unless it is ignored,
// as under nohup) that remove the temporary files of every OutputFile not yet
// committed and then end the process by the same signal. For programs (the
// CLI); a library embedded elsewhere (the Python module) leaves signals to its
// host, whose exception unwinds the OutputFiles. Idempotent.
void InstallOutputCleanup();

// The temporary files not yet committed or removed (for tests).
int OpenOutputFiles();

}  // namespace phasor

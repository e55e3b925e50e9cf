#include "tokenizers/file_text.h"

#include <fcntl.h>
#include <simdjson.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/error.h"

namespace phasor::tokenizers {
namespace {

static_assert(FileText::kPadding >= simdjson::SIMDJSON_PADDING, "simdjson reads past the text");

// A tokenizer.json of a large multilingual vocabulary is tens of megabytes.
constexpr size_t kMaxTokenizerFileBytes = size_t{1} << 30;

// An open descriptor of a regular file of at most kMaxTokenizerFileBytes,
// its size in size.
int OpenFile(const std::string& path, size_t& size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) throw Error(path + ": is not a regular file");
    throw Error(path + ": cannot open for reading: " + std::strerror(errno));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(path + ": is not a regular file");
  }
  if (static_cast<size_t>(st.st_size) > kMaxTokenizerFileBytes) {
    ::close(fd);
    throw Error(path + ": file is " + std::to_string(st.st_size) +
                " bytes, more than a tokenizer file");
  }
  size = static_cast<size_t>(st.st_size);
  return fd;
}

}  // namespace

FileText::FileText(const std::string& path) {
  const int fd = OpenFile(path, size_);
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  mapped_ = (size_ + kPadding + page - 1) / page * page;
  // Zero pages for the whole span, then the file over its start: the bytes
  // after the file's end read as zeros, whether in its last page or after it.
  base_ = ::mmap(nullptr, mapped_, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base_ == MAP_FAILED) {
    base_ = nullptr;
    ::close(fd);
    throw Error(path + ": cannot map " + std::to_string(size_) + " bytes: " + std::strerror(errno));
  }
  if (size_ > 0 && ::mmap(base_, size_, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE, fd, 0) ==
                       MAP_FAILED) {
    const int error = errno;
    ::munmap(base_, mapped_);
    base_ = nullptr;
    ::close(fd);
    throw Error(path + ": cannot read: " + std::strerror(error));
  }
  ::close(fd);
}

FileText::~FileText() {
  if (base_ != nullptr) ::munmap(base_, mapped_);
}

std::string ReadFileText(const std::string& path) {
  size_t size = 0;
  const int fd = OpenFile(path, size);
  std::string text(size, '\0');
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, text.data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      throw Error(path + ": cannot read" + (n < 0 ? std::string(": ") + std::strerror(errno) : ""));
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return text;
}

}  // namespace phasor::tokenizers

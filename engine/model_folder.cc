#include "engine/model_folder.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "engine/error.h"

namespace phasor {

void RequireModelFolder(const std::string& dir) {
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      throw Error("no such folder '" + dir +
                  "'; phasor reads a local folder: download it first, e.g. with "
                  "huggingface-cli download " +
                  dir + " --local-dir DIR");
    }
    throw Error("cannot open model folder " + dir + ": " + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) throw Error(dir + ": is not a folder");
}

}  // namespace phasor

// What a command's library call reports while it works, for its caller to
// show: warnings, files written and progress. Any of them may be left empty.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace phasor {

struct JobEvents {
  // A warning the caller should pass on ("phasor: warning: ..." in the CLI).
  std::function<void(const std::string& message)> warning;
  // A file written, and what it holds ("float32 [3, 4, 256], final hidden states").
  std::function<void(const std::string& path, const std::string& what)> wrote;
  // done units of work of the job's total; note, if any, says more ("2/3 lines").
  std::function<void(int64_t done, const std::string& note)> progress;

  void Warn(const std::string& message) const {
    if (warning) warning(message);
  }
  void Wrote(const std::string& path, const std::string& what) const {
    if (wrote) wrote(path, what);
  }
  void Progress(int64_t done, const std::string& note = "") const {
    if (progress) progress(done, note);
  }
};

}  // namespace phasor

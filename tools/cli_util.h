// Small helpers shared by the subcommands' printing. The checks of what a
// command is asked live with its work, in commands/.
#pragma once

#include <cstdio>
#include <string>

namespace phasor::cli {

// The one line every command prints on stderr for each file it writes.
inline void ReportWrote(const std::string& path, const std::string& what) {
  std::fprintf(stderr, "phasor: wrote %s: %s\n", path.c_str(), what.c_str());
}

}  // namespace phasor::cli

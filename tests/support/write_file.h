// Writes a whole file through engine/output_file.h's OutputFile (complete or
// not at all), for tests that set up a folder or check OutputFile's rules.
#pragma once

#include <string>

#include "engine/output_file.h"

namespace phasor::testing {

inline void WriteFileAtomically(const std::string& path, const std::string& bytes) {
  OutputFile f(path);
  f.Write(bytes);
  f.Commit();
}

}  // namespace phasor::testing

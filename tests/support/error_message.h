// The message of the Error a call throws, for tests of what a user is told.
#pragma once

#include <string>

#include "engine/error.h"

namespace phasor::testing {

// make()'s Error message, or "" when it throws none.
template <class F>
std::string ErrorMessage(F make) {
  try {
    make();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace phasor::testing

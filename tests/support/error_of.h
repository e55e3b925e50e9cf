// The message of the Error a call throws, for tests of what a user is told.
#pragma once

#include <string>

#include "engine/error.h"

namespace phasor::testing {

// The message of the Error that call() throws, or "" when it throws none.
template <class F>
std::string ErrorOf(F call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace phasor::testing

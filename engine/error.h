// The one error type of phasor.
//
// Every check on outside input (files, configs, token ids, public calls) throws
// phasor::Error with a message a user can act on; the CLI prints it as
// "phasor: error: <message>" and exits 1. UsageError marks a bad command line
// or a bad argument to a public call (exit 2).
#pragma once

#include <stdexcept>
#include <string>

namespace phasor {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

class UsageError : public Error {
 public:
  explicit UsageError(const std::string& message) : Error(message) {}
};

// A call stopped because its caller asked it to (EncodeOptions::cancelled):
// not a fault of the input.
class Cancelled : public Error {
 public:
  Cancelled() : Error("cancelled") {}
};

}  // namespace phasor

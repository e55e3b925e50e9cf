// Options the command line does not know, named with the nearest known one,
// so that "pe --dmodel 8" says "unknown option --dmodel (did you mean
// --d-model?)" rather than "--d-model is required".
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace phasor::cli {

// The first "--name" (or "--name=value") in argv[1..argc) that neither the
// chosen subcommand nor the app defines, as a message with the nearest known
// option of the two (or the one known name it begins: --out, --output); or,
// when no subcommand is named, the first word that is not one ("unknown
// command 'encdoe' (did you mean encode?)"); or the words that stand where
// only options are taken, in the order given ("encode takes options only, got
// the arguments '3 14 15' (did you mean --tokens "3 14 15"?)"); "" if none.
std::string UnknownOptionMessage(const CLI::App& app, int argc, const char* const* argv);

}  // namespace phasor::cli

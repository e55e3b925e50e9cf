// Options the command line does not know, named with the nearest known one,
// so that "pe --dmodel 8" says "unknown option --dmodel (did you mean
// --d-model?)" rather than "--d-model is required".
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace phasor::cli {

// The first "--name" (or "--name=value") in argv[1..argc) that neither the
// chosen subcommand nor the app defines, as a message with the nearest known
// option of the two; or, when no subcommand is named, the first word that
// is not one ("unknown command 'encdoe' (did you mean encode?)"); "" if every
// name is known.
std::string UnknownOptionMessage(const CLI::App& app, int argc, const char* const* argv);

}  // namespace phasor::cli

// phasor: a Transformer encoder inference engine built around positional encoding.
#include <omp.h>

#include <iostream>

#include "engine/cpu.h"
#include "engine/error.h"
#include "engine/memory_limit.h"
#include "engine/output_file.h"
#include "tools/commands.h"
#include "tools/unknown_option.h"

namespace {

// What the --isa callback is given when the option is absent: no name a user
// can type (and never shown, see option_text below).
const std::string kIsaNotGiven(1, '\0');

// --isa NAME is applied as it is read (trigger_on_parse), so that --version and
// every subcommand see it. Without --isa its callback still runs (force_callback,
// with kIsaNotGiven) before --help is answered or a subcommand runs: a bad
// PHASOR_ISA is then a usage error.
void AddIsaOption(CLI::App& app) {
  app.add_option(
         "--isa",
         [](const CLI::results_t& names) {
           if (names.back() == kIsaNotGiven) {
             phasor::ActiveIsa();  // throws UsageError for a bad PHASOR_ISA
           } else {
             phasor::SetIsa(names.back());
           }
           return true;
         },
         "Kernels for this target: amx, avx512, avx2 or portable (default: PHASOR_ISA, else the "
         "best "
         "this CPU has)")
      ->type_name("NAME")
      ->option_text("NAME")  // what type_name alone shows, without the default
      ->default_str(kIsaNotGiven)
      ->trigger_on_parse()
      ->force_callback();
}

}  // namespace

int main(int argc, char** argv) {
  // Ctrl-C, SIGTERM or a closed terminal leaves no temporary file behind and
  // any earlier output as it was (engine/output_file.h).
  phasor::InstallOutputCleanup();
  CLI::App app{"phasor: a fast, exact Transformer encoder engine built around positional encoding"};
  app.set_version_flag("--version", [] {
    return std::string("phasor ") + PHASOR_VERSION +
           "\nisa: " + phasor::IsaName(phasor::ActiveIsa());
  });
  app.require_subcommand(1);
  // Global options may also follow the subcommand: phasor encode --max-memory 4G ...
  app.fallthrough();
  // Option callbacks run before the subcommand's, so the cap is set first.
  app.add_option_function<std::string>(
         "--max-memory",
         [](const std::string& size) { phasor::SetMemoryLimit(phasor::ParseByteSize(size)); },
         "Most memory one command may allocate for a model, table or batch, e.g. 4G or 512M "
         "(default: 3/4 of RAM, " +
             phasor::FormatBytes(phasor::DefaultMemoryLimit()) + " here)")
      ->type_name("SIZE");
  AddIsaOption(app);
  phasor::cli::AddPeCommand(app);
  phasor::cli::AddEncodeCommand(app);
  phasor::cli::AddTokenizeCommand(app);
  phasor::cli::AddEmbedCommand(app);
  phasor::cli::AddMakeToyCommand(app);
  phasor::cli::AddBenchPeCommand(app);
  phasor::cli::AddServeCommand(app);
  // An unknown option is named before anything else can be said about the
  // command line (such as a required option that it was meant to be).
  const std::string unknown = phasor::cli::UnknownOptionMessage(app, argc, argv);
  if (!unknown.empty()) {
    std::cerr << "phasor: error: " << unknown << "\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // A bad PHASOR_ISA is named before a mistake in the command line, as the
    // environment comes first (the forced --isa callback may not have run).
    try {
      phasor::ActiveIsa();
    } catch (const phasor::UsageError& isa) {
      std::cerr << "phasor: error: " << isa.what() << "\n";
      return 2;
    }
    std::cerr << "phasor: error: " << e.what() << " (see --help)\n";
    return 2;
  } catch (const phasor::UsageError& e) {
    std::cerr << "phasor: error: " << e.what() << "\n";
    return 2;
  } catch (const phasor::Error& e) {
    std::cerr << "phasor: error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "phasor: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "phasor: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

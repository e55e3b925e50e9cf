// phasor: a Transformer encoder inference engine built around positional encoding.
#include <omp.h>

#include <cstring>
#include <iostream>

#include "engine/cpu.h"
#include "engine/error.h"
#include "engine/memory_limit.h"
#include "tools/commands.h"
#include "tools/unknown_option.h"

int main(int argc, char** argv) {
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
  app.add_option_function<std::string>(
         "--isa", [](const std::string& name) { phasor::SetIsa(name); },
         "Kernels for this target: avx512, avx2 or portable (default: PHASOR_ISA, else the best "
         "this CPU has)")
      ->type_name("NAME");
  phasor::cli::AddPeCommand(app);
  phasor::cli::AddEncodeCommand(app);
  phasor::cli::AddEmbedCommand(app);
  phasor::cli::AddMakeToyCommand(app);
  phasor::cli::AddBenchPeCommand(app);
  // An unknown option is named before anything else can be said about the
  // command line (such as a required option that it was meant to be).
  const std::string unknown = phasor::cli::UnknownOptionMessage(app, argc, argv);
  if (!unknown.empty()) {
    std::cerr << "phasor: error: " << unknown << "\n";
    return 2;
  }
  try {
    // The target first, so that every later step (--version too) sees it: --isa
    // (parsed again below for --help and its errors), else PHASOR_ISA.
    const char* isa = nullptr;
    for (int i = 1; i < argc; ++i) {
      if (std::strncmp(argv[i], "--isa=", 6) == 0) isa = argv[i] + 6;
      if (std::strcmp(argv[i], "--isa") == 0 && i + 1 < argc) isa = argv[i + 1];
    }
    if (isa != nullptr) {
      phasor::SetIsa(isa);
    } else {
      phasor::ActiveIsa();  // a bad PHASOR_ISA is a usage error before anything runs
    }
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
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

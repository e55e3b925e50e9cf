// The subcommands of the phasor CLI. Each Add* registers one subcommand on the
// root app; its callback runs the command and throws phasor::Error (exit 1) or
// phasor::UsageError (exit 2) on failure.
#pragma once

#include <CLI/CLI.hpp>

namespace phasor::cli {

void AddPeCommand(CLI::App& app);
void AddEmbedCommand(CLI::App& app);
void AddEncodeCommand(CLI::App& app);
void AddMakeToyCommand(CLI::App& app);
void AddBenchPeCommand(CLI::App& app);
void AddTokenizeCommand(CLI::App& app);
void AddServeCommand(CLI::App& app);

}  // namespace phasor::cli

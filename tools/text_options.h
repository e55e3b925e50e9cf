// The options every command that reads text shares (encode --text-file,
// tokenize): where the text is in the file (--jsonl-field, --csv-column),
// and --truncate / --no-truncate as one choice.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>

#include "commands/tokenize_job.h"

namespace phasor::cli {

// --truncate and --no-truncate as given.
struct TruncateFlags {
  bool on = false;
  bool off = false;
};

// The choice the flags make: true, false, or nullopt (the folder's default);
// UsageError for both.
std::optional<bool> TruncateChoice(const TruncateFlags& flags);

// Adds --truncate (help: on_help) and --no-truncate to cmd.
void AddTruncateFlags(CLI::App* cmd, TruncateFlags& flags, const std::string& on_help);

// Adds --jsonl-field and --csv-column, read into t; prefix begins their help
// ("With --text-file: " for encode).
void AddTextFormatOptions(CLI::App* cmd, TextRequest& t, const std::string& prefix);

// A help formatter whose usage line is the given synopsis: CLI11's lists
// only "[OPTIONS]".
class SynopsisFormatter : public CLI::Formatter {
 public:
  explicit SynopsisFormatter(std::string synopsis) : synopsis_(std::move(synopsis)) {}
  std::string make_usage(const CLI::App*, std::string) const override {
    return "Usage: " + synopsis_ + "\n";
  }

 private:
  std::string synopsis_;
};

}  // namespace phasor::cli

#include "tools/text_options.h"

#include "engine/error.h"

namespace phasor::cli {

std::optional<bool> TruncateChoice(const TruncateFlags& flags) {
  if (flags.on && flags.off)
    throw UsageError("--truncate and --no-truncate do not go together: give one");
  if (flags.on) return true;
  if (flags.off) return false;
  return std::nullopt;
}

void AddTruncateFlags(CLI::App* cmd, TruncateFlags& flags, const std::string& on_help) {
  cmd->add_flag("--truncate", flags.on, on_help);
  cmd->add_flag("--no-truncate", flags.off,
                "A text longer than that limit is an error naming its line, its length, the "
                "limit and where the limit comes from (the default for a folder that is not a "
                "sentence-transformers one)");
}

void AddTextFormatOptions(CLI::App* cmd, TextRequest& t, const std::string& prefix) {
  cmd->add_option("--jsonl-field", t.jsonl_field,
                  prefix +
                      "the file is JSON lines (one object a line): read each line's string "
                      "field NAME; with --pairs two names, NAME_A,NAME_B")
      ->type_name("NAME[,NAME_B]");
  cmd->add_option("--csv-column", t.csv_column,
                  prefix +
                      "the file is CSV or TSV (a tab for .tsv, a comma for .csv, else the "
                      "header line's tab, comma or ';'; RFC 4180 quotes, newlines in quotes "
                      "too): read column NAME of the header row; with --pairs two names, "
                      "NAME_A,NAME_B")
      ->type_name("NAME[,NAME_B]");
}

}  // namespace phasor::cli

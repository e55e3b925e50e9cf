#include "tools/unknown_option.h"

#include <algorithm>
#include <vector>

#include "engine/edit_distance.h"

namespace phasor::cli {
namespace {

// The long names ("--d-model") of every option of an app.
std::vector<std::string> LongNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
  }
  return names;
}

}  // namespace

std::string UnknownOptionMessage(const CLI::App& app, int argc, const char* const* argv) {
  // The subcommand: the first argument that names one.
  const CLI::App* sub = nullptr;
  for (int k = 1; k < argc && !sub; ++k) {
    for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) {
      if (s->get_name() == argv[k]) sub = s;
    }
  }
  std::vector<std::string> known = LongNames(app);
  if (!sub) {
    // The first word that is not an option or a global option's value: a
    // subcommand that does not exist.
    for (int k = 1; k < argc; ++k) {
      const std::string arg = argv[k];
      if (arg.rfind("-", 0) == 0) {
        const CLI::Option* o = app.get_option_no_throw(arg.substr(0, arg.find('=')));
        if (o && o->get_type_size() != 0 && arg.find('=') == std::string::npos) ++k;
        continue;
      }
      std::string message = "unknown command '" + arg + "'", nearest, all;
      size_t best = std::string::npos;
      for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) {
        const size_t d = EditDistance(arg, s->get_name());
        if (d < best) best = d, nearest = s->get_name();
        all += (all.empty() ? "" : ", ") + s->get_name();
      }
      if (!nearest.empty() && best <= 3 && 2 * best < arg.size()) {
        message += " (did you mean " + nearest + "?)";
      }
      return message + "; the commands are " + all;
    }
  }
  if (sub) {
    const std::vector<std::string> own = LongNames(*sub);
    known.insert(known.end(), own.begin(), own.end());
  }
  for (int k = 1; k < argc; ++k) {
    const std::string arg = argv[k];
    if (arg.rfind("--", 0) != 0 || arg.size() == 2) continue;
    const std::string name = arg.substr(0, arg.find('='));
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string message = "unknown option " + name;
    if (sub) message += " for " + sub->get_name();
    size_t best = std::string::npos;
    std::string nearest;
    for (const std::string& candidate : known) {
      const size_t d = EditDistance(name, candidate);
      if (d < best) best = d, nearest = candidate;
    }
    // A suggestion only when it is close: a few edits, less than half the name.
    if (!nearest.empty() && best <= 3 && 2 * best < name.size()) {
      message += " (did you mean " + nearest + "?)";
    }
    return message;
  }
  return "";
}

}  // namespace phasor::cli

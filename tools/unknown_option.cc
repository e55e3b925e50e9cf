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

// True for an option followed by its value (not a flag: CLI11 gives flags a
// type size of 1 but expects 0 of them).
bool TakesValue(const CLI::Option* o) { return o != nullptr && o->get_expected_min() > 0; }

// True for "3", "-1", "3,14": what a token id list is made of.
bool IsIdList(const std::string& word) {
  return !word.empty() && word.find_first_not_of("-0123456789,") == std::string::npos &&
         word.find_first_of("0123456789") != std::string::npos;
}

// The words of argv that are neither the subcommand, an option nor an
// option's value, in the order given: phasor's commands take none.
std::string UnexpectedWordsMessage(const CLI::App& app, const CLI::App& sub, int argc,
                                   const char* const* argv) {
  std::vector<std::string> words;
  bool seen_sub = false;
  for (int k = 1; k < argc; ++k) {
    const std::string arg = argv[k];
    if (arg == "--") {
      words.insert(words.end(), argv + k + 1, argv + argc);
      break;
    }
    if (arg.size() > 1 && arg[0] == '-' && !IsIdList(arg)) {
      const std::string name = arg.substr(0, arg.find('='));
      const CLI::Option* o = sub.get_option_no_throw(name);
      if (!o) o = app.get_option_no_throw(name);
      if (TakesValue(o) && arg.find('=') == std::string::npos) ++k;  // its value
      continue;
    }
    if (!seen_sub && arg == sub.get_name()) {
      seen_sub = true;
      continue;
    }
    words.push_back(arg);
  }
  if (words.empty()) return "";
  std::string list;
  bool ids = true;
  for (const std::string& w : words) {
    list += (list.empty() ? "" : " ") + w;
    ids = ids && IsIdList(w);
  }
  std::string message = sub.get_name() + " takes options only, got " +
                        (words.size() == 1 ? "the argument '" : "the arguments '") + list + "'";
  if (ids && sub.get_option_no_throw("--tokens") != nullptr) {
    return message + " (did you mean --tokens \"" + list + "\"?)";
  }
  return message + " (see phasor " + sub.get_name() + " --help)";
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
        if (TakesValue(o) && arg.find('=') == std::string::npos) ++k;
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
    // A suggestion only when it is close: a few edits, less than half the name;
    // else the one known name it begins (--out: --output).
    if (nearest.empty() || best > 3 || 2 * best >= name.size()) {
      nearest.clear();
      int begun = 0;
      for (const std::string& candidate : known) {
        if (name.size() >= 4 && candidate.rfind(name, 0) == 0) ++begun, nearest = candidate;
      }
      if (begun != 1) nearest.clear();
    }
    if (!nearest.empty()) message += " (did you mean " + nearest + "?)";
    return message;
  }
  return sub ? UnexpectedWordsMessage(app, *sub, argc, argv) : "";
}

}  // namespace phasor::cli

// `phasor serve` as a library call: loads the model, listens, answers until
// SIGTERM or SIGINT, then stops accepting, answers what is in flight and
// returns.
//
//   ServeOptions o;
//   o.model = "all-MiniLM-L6-v2";
//   RunServe(o, events, [](const std::string& line) { std::cerr << line << "\n"; });
#pragma once

#include <functional>
#include <string>

#include "commands/job_events.h"
#include "serving/service.h"

namespace phasor::serving {

// Blocks SIGINT and SIGTERM in the calling thread (and so in every thread it
// starts; they stay blocked in the caller's on return) and waits for them on
// one of its own; ignores SIGPIPE (a client gone mid-answer is an error of
// that write alone). info gets "listening on http://HOST:PORT" once bound,
// a line per request (unless options.quiet) and the shutdown's news. Throws
// UsageError / Error (the model, the address) before it listens.
void RunServe(const ServeOptions& options, const JobEvents& events,
              const std::function<void(const std::string&)>& info);

}  // namespace phasor::serving

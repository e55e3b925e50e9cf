#include "serving/serve.h"

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "serving/http_server.h"

namespace phasor::serving {

void RunServe(const ServeOptions& options, const JobEvents& events,
              const std::function<void(const std::string&)>& info) {
  ::signal(SIGPIPE, SIG_IGN);
  // A descriptor per connection: as many as the system lets this process have.
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = std::min<rlim_t>(files.rlim_max, 1 << 16);
    setrlimit(RLIMIT_NOFILE, &files);
  }
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  // Before any thread starts: each inherits the mask, so only sigtimedwait
  // below takes these signals.
  // They stay blocked when this returns: a second signal during the shutdown
  // must not kill the process on its way out.
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  Service service(options, events);
  HttpServer http(service, info);
  const int port = http.Bind();
  info("listening on http://" + options.host + ":" + std::to_string(port) + " (" + options.model +
       ", pool " + service.pooling() + ", " + std::to_string(service.max_input_tokens()) +
       " tokens an input at most)");

  std::atomic<bool> done{false};
  std::thread watcher([&] {
    const timespec tick{0, 100 * 1000 * 1000};
    bool stopping = false;
    while (!done.load()) {
      const int sig = sigtimedwait(&stop_signals, nullptr, &tick);
      if (sig == SIGINT || sig == SIGTERM) {
        const std::string name = sig == SIGINT ? "SIGINT" : "SIGTERM";
        if (stopping) {
          info(name + ": already stopping");
          continue;
        }
        stopping = true;
        info(name + ": no new connections; answering the requests in flight");
        http.Stop();
      }
    }
  });
  http.Run();
  done.store(true);
  watcher.join();
  service.Stop();
  info("stopped");
}

}  // namespace phasor::serving

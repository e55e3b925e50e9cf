// The service behind HTTP/1.1 (cpp-httplib): each route of routes.cc on its
// method and path, errors as JSON, limits, a log line per request.
//
// Connections are served by threads of their own (ConnectionPool), apart
// from the encoder's: a slow or silent client holds a connection thread for
// at most 10 s (Connections closes it then), never a compute thread. Bodies over
// --payload-limit are refused (413) from their Content-Length, before they
// are read; the request line and each header line are bounded (8 KiB).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "serving/service.h"

namespace phasor::serving {

class HttpServer {
 public:
  // log receives one line per request (unless options.quiet) and the
  // server's own news; it may be called from many threads at once.
  HttpServer(Service& service, std::function<void(const std::string&)> log);
  ~HttpServer();

  // Binds host:port (port 0: a free one) and returns the port. Error naming
  // the address if it cannot be bound.
  int Bind();
  // Serves until Stop; returns once every connection's request is answered.
  void Run();
  // Stops accepting and ends Run once the requests in flight are answered.
  // Safe from any thread.
  void Stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace phasor::serving

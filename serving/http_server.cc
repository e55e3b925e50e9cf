#include "serving/http_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

#include "engine/error.h"
#include "serving/connection_pool.h"
#include "serving/connections.h"
#include "serving/peer_socket.h"
#include "serving/routes/routes.h"

namespace phasor::serving {
namespace {

// Seconds a connection may wait between two bytes of a request (or an
// answer's), and idle between two requests.
constexpr time_t kReadTimeoutSeconds = 5;
constexpr time_t kKeepAliveSeconds = 5;
// Time a connection has to send a whole request (line, headers and body) from
// when it opens or its last answer went: a client that trickles it is closed.
constexpr auto kRequestTimeout = std::chrono::seconds(10);
// How often the connections are looked at (and, when stopping, closed).
constexpr auto kSweepInterval = std::chrono::milliseconds(100);
// Connections accepted but not yet taken by a thread, at most.
constexpr int kListenBacklog = 1024;
// Connection threads beyond --max-concurrent-requests: room for slow
// clients, idle keep-alive connections and the GET routes.
constexpr int64_t kSpareConnectionThreads = 64;
// Connection threads at most, made as connections need them (a few dozen KiB
// of memory each): a slow client holds one for kRequestTimeout at most.
constexpr size_t kMaxConnectionThreads = 2048;

// httplib::Server with its listening socket reachable (for a deeper backlog).
class Listener : public httplib::Server {
 public:
  int socket() const { return svr_sock_; }
};

thread_local Clock::time_point t_request_start;

// OpenAI's routes answer errors in OpenAI's shape, the others in TEI's.
bool OpenAiRoute(const std::string& path) { return path.rfind("/v1/", 0) == 0; }

std::string ErrorBodyFor(const std::string& path, const ApiError& e) {
  return OpenAiRoute(path) ? OpenAiErrorBody(e) : ErrorBody(e);
}

void SetError(const std::string& path, const ApiError& e, httplib::Response& res) {
  res.status = e.status;
  res.set_content(ErrorBodyFor(path, e), "application/json");
}

// A request body is read as JSON whatever its Content-Type says: curl's -d
// sends application/x-www-form-urlencoded, which httplib would otherwise parse
// as a form (and refuse past 8 KiB). multipart/form-data is no JSON body: 415.
// Called before the body is read; req is httplib's own, const only in the
// handler's signature.
bool NormaliseBody(const httplib::Request& req, httplib::Response& res) {
  auto& headers = const_cast<httplib::Headers&>(req.headers);
  const std::string type = req.get_header_value("Content-Type");
  if (type.rfind("multipart/", 0) == 0) {
    SetError(req.path,
             ApiError{415, "Validation",
                      "Content-Type " + type.substr(0, 60) +
                          ": the body must be a JSON object (send Content-Type: "
                          "application/json)"},
             res);
    return false;
  }
  if (!type.empty() && type.rfind("application/json", 0) != 0) {
    headers.erase("Content-Type");
    headers.emplace("Content-Type", "application/json");
  }
  // A request with neither Content-Length nor chunked encoding has no body
  // (RFC 9112 6.3): never wait for one until the read times out.
  if (!req.has_header("Content-Length") && !req.has_header("Transfer-Encoding"))
    headers.emplace("Content-Length", "0");
  return true;
}

}  // namespace

class HttpServer::Impl {
 public:
  Impl(Service& service, std::function<void(const std::string&)> log)
      : service_(service), log_(std::move(log)) {
    const ServeOptions& o = service_.options();
    const auto threads = static_cast<size_t>(o.max_concurrent_requests + kSpareConnectionThreads);
    server_.new_task_queue = [threads] {
      return new ConnectionPool(threads, std::max(threads, kMaxConnectionThreads));
    };
    server_.set_payload_max_length(static_cast<size_t>(o.payload_limit));
    server_.set_read_timeout(kReadTimeoutSeconds, 0);
    server_.set_write_timeout(kReadTimeoutSeconds, 0);
    server_.set_keep_alive_timeout(kKeepAliveSeconds);
    server_.set_keep_alive_max_count(1u << 20);
    server_.set_tcp_nodelay(true);
    for (const Route& route : Routes()) {
      auto handler = [this, &route](const httplib::Request& req, httplib::Response& res) {
        Dispatch(route, req, res);
      };
      if (std::string(route.method) == "GET") {
        server_.Get(route.path, handler);
      } else {
        server_.Post(route.path, handler);
      }
    }
    server_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      t_request_start = Clock::now();
      // Its body is on its way: a shutdown now answers it (503) rather than
      // closing the connection under it.
      const int fd = ConnectionSocket(req.remote_addr, req.remote_port, req.local_port);
      if (fd >= 0 && connections_) connections_->Receiving(fd, req.remote_port);
      if (WrongMethod(req, res)) return httplib::Server::HandlerResponse::Handled;
      if (req.method == "POST" && !NormaliseBody(req, res))
        return httplib::Server::HandlerResponse::Handled;
      return httplib::Server::HandlerResponse::Unhandled;
    });
    server_.set_error_handler(
        [this](const httplib::Request& req, httplib::Response& res) { ErrorPage(req, res); });
    server_.set_exception_handler(
        [](const httplib::Request& req, httplib::Response& res, std::exception_ptr) {
          SetError(req.path, ApiError{500, "Backend", "internal error"}, res);
        });
    // Counted once the status is final (after the error handler) and before a
    // byte of the reply is written: a client that reads /metrics right after
    // its answer finds its request counted.
    server_.set_post_routing_handler(
        [this](const httplib::Request& req, httplib::Response& res) { Count(req, res); });
    server_.set_logger(
        [this](const httplib::Request& req, const httplib::Response& res) { Log(req, res); });
  }

  int Bind() {
    const ServeOptions& o = service_.options();
    int port = o.port;
    errno = 0;
    if (port == 0) {
      port = server_.bind_to_any_port(o.host);
    } else if (!server_.bind_to_port(o.host, port)) {
      port = -1;
    }
    if (port < 0) {
      // errno is 0 when the host did not resolve to an address of this machine.
      throw Error("cannot listen on " + o.host + ":" + std::to_string(o.port) + ": " +
                  (errno != 0 ? std::strerror(errno) : "not an address of this machine"));
    }
    ::listen(server_.socket(), kListenBacklog);  // httplib's own backlog is 5
    connections_ = std::make_unique<Connections>(
        port, server_.socket(),
        std::chrono::duration_cast<std::chrono::milliseconds>(kRequestTimeout));
    return port;
  }

  void Run() {
    std::atomic<bool> done{false};
    std::thread sweeper([&] {
      while (!done.load()) {
        connections_->Sweep(stopping_.load());
        std::this_thread::sleep_for(kSweepInterval);
      }
    });
    server_.listen_after_bind();  // returns once every connection's thread has ended
    done.store(true);
    sweeper.join();
  }

  void Stop() {
    stopping_.store(true);
    server_.stop();
  }

 private:
  // A known path asked with another method: 405 with the methods it takes.
  static bool WrongMethod(const httplib::Request& req, httplib::Response& res) {
    std::string allow;
    for (const Route& r : Routes()) {
      if (req.path != r.path) continue;
      if (req.method == r.method || (req.method == "HEAD" && std::string(r.method) == "GET"))
        return false;
      allow += (allow.empty() ? "" : ", ") + std::string(r.method);
    }
    if (allow.empty()) return false;  // an unknown path: 404
    SetError(req.path,
             ApiError{405, "Validation",
                      req.method.substr(0, 20) + " " + req.path + ": this route takes " + allow},
             res);
    res.set_header("Allow", allow);
    return true;
  }

  void Dispatch(const Route& route, const httplib::Request& req, httplib::Response& res) {
    HttpReply reply;
    bool admitted = false;
    try {
      if (stopping_.load()) throw ApiError{503, "Unhealthy", "the server is shutting down"};
      if (route.computes) {
        admitted = service_.Admit();
        if (!admitted) {
          throw ApiError{429, "Overloaded",
                         "the server has " +
                             std::to_string(service_.options().max_concurrent_requests) +
                             " requests in flight (--max-concurrent-requests): retry later"};
        }
      }
      // Its connection: watched for the client leaving, and kept open on shutdown.
      const int fd = ConnectionSocket(req.remote_addr, req.remote_port, req.local_port);
      std::optional<Connections::Busy> busy;
      if (fd >= 0) busy.emplace(*connections_, fd);
      HttpRequest r{req.body, [fd] { return PeerClosed(fd); }};
      route.handle(service_, r, reply);
    } catch (const ApiError& e) {
      Refuse(req.path, e, reply);
    } catch (const std::bad_alloc&) {
      Refuse(req.path, ApiError{507, "Backend", "out of memory for this request"}, reply);
    } catch (const std::exception& e) {
      Refuse(req.path, ApiError{500, "Backend", e.what()}, reply);
    }
    if (admitted) service_.Release();
    if (reply.status == 429) res.set_header("Retry-After", "1");
    res.status = reply.status;
    res.set_content(std::move(reply.body), reply.content_type.c_str());
    if (route.computes) {
      service_.metrics().request_seconds.Observe(
          std::chrono::duration<double>(Clock::now() - t_request_start).count());
    }
  }

  static void Refuse(const std::string& path, const ApiError& e, HttpReply& reply) {
    reply.status = e.status;
    reply.body = ErrorBodyFor(path, e);
    reply.content_type = "application/json";
  }

  void ErrorPage(const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;  // a route's own answer
    std::string message, type = "Validation";
    switch (res.status) {
      case 404: {
        message = "no route " + req.method + " " + req.path + "; the routes are";
        for (const Route& r : Routes()) message += std::string(" ") + r.method + " " + r.path + ",";
        message.pop_back();
        type = "NotFound";
        break;
      }
      case 413:
        message = "the body is larger than the server takes (--payload-limit " +
                  std::to_string(service_.options().payload_limit) + " bytes)";
        break;
      default:
        message = "bad request (HTTP status " + std::to_string(res.status) + ")";
    }
    res.set_content(ErrorBodyFor(req.path, ApiError{res.status, type, message}),
                    "application/json");
  }

  void Count(const httplib::Request& req, const httplib::Response& res) {
    bool known = false;  // an arbitrary path is never a label: "other"
    for (const Route& r : Routes()) known = known || req.path == r.path;
    service_.metrics().CountRequest(known ? req.path : "other", res.status);
  }

  void Log(const httplib::Request& req, const httplib::Response& res) {
    const int fd = ConnectionSocket(req.remote_addr, req.remote_port, req.local_port);
    if (fd >= 0 && connections_) connections_->Answered(fd, req.remote_port);
    if (service_.options().quiet) return;
    const double ms =
        std::chrono::duration<double, std::milli>(Clock::now() - t_request_start).count();
    char line[512];
    std::snprintf(line, sizeof line, "%s %.200s %d %.60s:%d %.1f ms %zu bytes", req.method.c_str(),
                  req.path.c_str(), res.status, req.remote_addr.c_str(), req.remote_port, ms,
                  res.body.size());
    log_(line);
  }

  Service& service_;
  std::function<void(const std::string&)> log_;
  Listener server_;
  std::unique_ptr<Connections> connections_;  // once bound
  std::atomic<bool> stopping_{false};
};

HttpServer::HttpServer(Service& service, std::function<void(const std::string&)> log)
    : impl_(std::make_unique<Impl>(service, std::move(log))) {}
HttpServer::~HttpServer() = default;
int HttpServer::Bind() { return impl_->Bind(); }
void HttpServer::Run() { impl_->Run(); }
void HttpServer::Stop() { impl_->Stop(); }

}  // namespace phasor::serving

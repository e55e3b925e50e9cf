// The server's connections, watched from outside the HTTP library: a
// connection that has not sent a whole request within the request timeout
// since it opened (or since its last answer) is closed, so that a client
// trickling its headers or body holds a connection thread for a bounded time;
// on shutdown every connection neither being answered nor receiving a request
// is closed at once (one receiving its body is answered 503 once it arrives).
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <set>

namespace phasor::serving {

class Connections {
 public:
  using Clock = std::chrono::steady_clock;

  // port: the server's; listener: its listening socket (never closed here).
  Connections(int port, int listener, std::chrono::milliseconds request_timeout);

  // While a Busy lives, fd is being answered: never closed here.
  class Busy {
   public:
    Busy(Connections& c, int fd);
    ~Busy();
    Busy(const Busy&) = delete;
    Busy& operator=(const Busy&) = delete;

   private:
    Connections& c_;
    int fd_;
  };

  // The head of a request has arrived on fd (from peer_port): its body is on
  // its way, so shutdown leaves the connection open until it is answered.
  void Receiving(int fd, int peer_port);
  // fd's request has been answered (or refused): idle again.
  void Answered(int fd, int peer_port);

  // One look at every socket of the process on the server's port: closes
  // (shutdown) those idle or receiving for longer than the timeout, or, with
  // stopping, every one neither busy nor receiving. Returns how many it closed.
  int Sweep(bool stopping);

 private:
  struct Seen {
    int peer_port = 0;  // tells a reused descriptor from the one seen before
    Clock::time_point since;
    bool receiving = false;  // a request's head has arrived, its answer not yet gone
  };
  int port_;
  int listener_;
  std::chrono::milliseconds timeout_;
  std::mutex mu_;
  std::multiset<int> busy_;
  std::map<int, Seen> seen_;
};

}  // namespace phasor::serving

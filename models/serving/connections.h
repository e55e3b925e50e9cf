// The server's connections, watched from outside the HTTP library: a
// connection that has not sent a whole request within the request timeout
// since it opened (or since its last answer) is closed, so that a client
// trickling its headers or body holds a connection thread for a bounded time;
// on shutdown every connection not being answered is closed at once.
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

  // One look at every socket of the process on the server's port: closes
  // (shutdown) those idle or receiving for longer than the timeout, or, with
  // stopping, every one not busy. Returns how many it closed.
  int Sweep(bool stopping);

 private:
  struct Seen {
    int peer_port = 0;  // tells a reused descriptor from the one seen before
    Clock::time_point since;
  };
  int port_;
  int listener_;
  std::chrono::milliseconds timeout_;
  std::mutex mu_;
  std::multiset<int> busy_;
  std::map<int, Seen> seen_;
};

}  // namespace phasor::serving

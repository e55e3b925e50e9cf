#include "serving/connections.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>

#include "serving/peer_socket.h"

namespace phasor::serving {
Connections::Connections(int port, int listener, std::chrono::milliseconds request_timeout)
    : port_(port), listener_(listener), timeout_(request_timeout) {}

Connections::Busy::Busy(Connections& c, int fd) : c_(c), fd_(fd) {
  std::lock_guard<std::mutex> lock(c_.mu_);
  c_.busy_.insert(fd_);
}

Connections::Busy::~Busy() {
  std::lock_guard<std::mutex> lock(c_.mu_);
  c_.busy_.erase(c_.busy_.find(fd_));
  // Its next request has a whole timeout from now.
  const auto it = c_.seen_.find(fd_);
  if (it != c_.seen_.end()) {
    it->second.since = Clock::now();
    it->second.receiving = false;
  }
}

void Connections::Receiving(int fd, int peer_port) {
  std::lock_guard<std::mutex> lock(mu_);
  Seen& s = seen_[fd];
  if (s.peer_port != peer_port) s = Seen{peer_port, Clock::now(), false};
  s.receiving = true;
}

void Connections::Answered(int fd, int peer_port) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = seen_.find(fd);
  if (it != seen_.end() && it->second.peer_port == peer_port) it->second.receiving = false;
}

int Connections::Sweep(bool stopping) {
  const auto now = Clock::now();
  int closed = 0;
  std::lock_guard<std::mutex> lock(mu_);
  std::map<int, Seen> seen;
  ForEachOpenFd([&](int fd) {
    SocketEnds ends;
    if (fd == listener_ || !GetSocketEnds(fd, ends) || ends.local_port != port_) return;
    const int peer = ends.peer_port;
    Seen s{peer, now};
    const auto it = seen_.find(fd);
    if (it != seen_.end() && it->second.peer_port == peer) s = it->second;
    if (busy_.count(fd) > 0) {
      s.since = now;
    } else if ((stopping && !s.receiving) || now - s.since > timeout_) {
      ::shutdown(fd, SHUT_RDWR);  // its thread sees the end and closes it
      ++closed;
    }
    seen[fd] = s;
  });
  seen_.swap(seen);
  return closed;
}

}  // namespace phasor::serving

// Which socket a request came on, and whether its client has closed it: the
// HTTP library hands a route the request's addresses but not its socket, so
// the socket is found by its two ends (once per connection and thread).
#pragma once

#include <functional>
#include <string>

namespace phasor::serving {

// The two ends of a connected IPv4 or IPv6 socket.
struct SocketEnds {
  std::string local_addr, peer_addr;
  int local_port = -1, peer_port = -1;
};
// false if fd is not one (not a socket, not connected, another family).
bool GetSocketEnds(int fd, SocketEnds& ends);

// The descriptor of this process's TCP socket from local_port to
// remote_addr:remote_port, or -1. Cached per thread: a connection thread asks
// again for the same connection at the cost of one getpeername.
int ConnectionSocket(const std::string& remote_addr, int remote_port, int local_port);

// Calls fn(fd) for every descriptor the process has open (from /proc/self/fd:
// a few system calls for a few connections, however high RLIMIT_NOFILE is).
void ForEachOpenFd(const std::function<void(int)>& fn);

// Whether the peer of fd has closed its end (or reset it). Data waiting to
// be read (a pipelined request) is not a close.
bool PeerClosed(int fd);

}  // namespace phasor::serving

#include "serving/peer_socket.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace phasor::serving {
namespace {

// The port and address of an IPv4 or IPv6 socket address.
bool Ends(const sockaddr_storage& a, std::string& addr, int& port) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&a);
    inet_ntop(AF_INET, &in->sin_addr, buf, sizeof buf);
    port = ntohs(in->sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&a);
    inet_ntop(AF_INET6, &in6->sin6_addr, buf, sizeof buf);
    port = ntohs(in6->sin6_port);
  } else {
    return false;
  }
  addr = buf;
  return true;
}

bool Matches(int fd, const std::string& remote_addr, int remote_port, int local_port) {
  SocketEnds e;
  return GetSocketEnds(fd, e) && e.peer_port == remote_port && e.local_port == local_port &&
         e.peer_addr == remote_addr;
}

}  // namespace

bool GetSocketEnds(int fd, SocketEnds& ends) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0 ||
      !Ends(a, ends.local_addr, ends.local_port))
    return false;
  len = sizeof a;
  return getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0 &&
         Ends(a, ends.peer_addr, ends.peer_port);
}

void ForEachOpenFd(const std::function<void(int)>& fn) {
  std::vector<int> fds;
  if (DIR* dir = opendir("/proc/self/fd")) {
    const int own = dirfd(dir);
    while (const dirent* e = readdir(dir)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      const int fd = std::atoi(e->d_name);
      if (fd != own) fds.push_back(fd);
    }
    closedir(dir);
  } else {  // no /proc: every descriptor below the limit
    rlimit lim{};
    getrlimit(RLIMIT_NOFILE, &lim);
    const int top = static_cast<int>(std::min<rlim_t>(lim.rlim_cur, 1 << 16));
    for (int fd = 0; fd < top; ++fd) fds.push_back(fd);
  }
  for (const int fd : fds) fn(fd);
}

int ConnectionSocket(const std::string& remote_addr, int remote_port, int local_port) {
  thread_local int cached = -1;
  if (cached >= 0 && Matches(cached, remote_addr, remote_port, local_port)) return cached;
  cached = -1;
  ForEachOpenFd([&](int fd) {
    if (cached < 0 && fd > 2 && Matches(fd, remote_addr, remote_port, local_port)) cached = fd;
  });
  return cached;
}

bool PeerClosed(int fd) {
  if (fd < 0) return false;
  pollfd p{fd, POLLIN | POLLRDHUP, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) return true;
  char c;
  return recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

}  // namespace phasor::serving

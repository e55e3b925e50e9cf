// The threads that serve connections (cpp-httplib hands each accepted
// connection to a TaskQueue): min of them from the start, more made when all
// are busy, up to max. A slow client holds one of them for a bounded time
// (Connections closes it), so only more slow clients at once than max can
// make an ordinary request wait for a thread.
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace phasor::serving {

class ConnectionPool : public httplib::TaskQueue {
 public:
  ConnectionPool(size_t min_threads, size_t max_threads);
  ~ConnectionPool() override;

  void enqueue(std::function<void()> fn) override;
  // Runs what is queued, then joins every thread.
  void shutdown() override;

 private:
  void Work();

  const size_t max_threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0;
  bool shutdown_ = false;
};

}  // namespace phasor::serving

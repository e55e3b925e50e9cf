#include "serving/connection_pool.h"

#include <utility>

namespace phasor::serving {

ConnectionPool::ConnectionPool(size_t min_threads, size_t max_threads)
    : max_threads_(std::max(min_threads, max_threads)) {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < min_threads; ++i) threads_.emplace_back([this] { Work(); });
}

ConnectionPool::~ConnectionPool() { shutdown(); }

void ConnectionPool::enqueue(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mu_);
  jobs_.push_back(std::move(fn));
  // Every thread busy: one more, while there is room.
  if (idle_ < jobs_.size() && threads_.size() < max_threads_)
    threads_.emplace_back([this] { Work(); });
  cv_.notify_one();
}

void ConnectionPool::shutdown() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutdown_ = true;
    threads.swap(threads_);
  }
  cv_.notify_all();
  for (std::thread& t : threads) t.join();
}

void ConnectionPool::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    ++idle_;
    cv_.wait(lock, [this] { return shutdown_ || !jobs_.empty(); });
    --idle_;
    if (jobs_.empty()) return;  // shutting down, nothing left
    std::function<void()> fn = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    fn();
    lock.lock();
  }
}

}  // namespace phasor::serving

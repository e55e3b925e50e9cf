#include "engine/parallel.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace phasor {
void SetNumThreads(int n) {
  if (n <= 0) n = omp_get_num_procs();
  omp_set_num_threads(n);
}

int NumThreads() { return omp_get_max_threads(); }

void ParallelFor(int64_t n, int64_t grain, FunctionRef<void(int64_t, int64_t)> fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int64_t max_chunks = n / grain;
  const int threads = static_cast<int>(std::min<int64_t>(NumThreads(), max_chunks));
  if (threads <= 1 || omp_in_parallel()) {
    fn(0, n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int64_t t = omp_get_thread_num();
    const int64_t nt = omp_get_num_threads();
    const int64_t begin = n * t / nt;
    const int64_t end = n * (t + 1) / nt;
    if (begin < end) fn(begin, end);
  }
}

void ParallelTasks(int64_t tasks, int max_slots, FunctionRef<void(int64_t, int)> fn) {
  if (tasks <= 0) return;
  int threads = NumThreads();
  if (max_slots > 0) threads = std::min(threads, max_slots);
  threads = static_cast<int>(std::min<int64_t>(threads, tasks));
  if (threads <= 1 || omp_in_parallel()) {
    for (int64_t t = 0; t < tasks; ++t) fn(t, 0);
    return;
  }
  // Thread t takes task t first, then the rest one at a time from a shared
  // counter: a call of one task per thread splits the same way every time
  // (each thread finds its rows where it left them, in its own caches), and a
  // thread slowed by other work on the machine takes fewer of the rest.
  std::atomic<int64_t> next{threads};
#pragma omp parallel num_threads(threads)
  {
    const int slot = omp_get_thread_num();
    for (int64_t t = slot; t < tasks; t = next.fetch_add(1, std::memory_order_relaxed)) {
      fn(t, slot);
    }
  }
}

}  // namespace phasor

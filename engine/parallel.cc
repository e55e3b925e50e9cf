#include "engine/parallel.h"

#include <omp.h>

#include <algorithm>

namespace phasor {

void SetNumThreads(int n) {
  if (n <= 0) n = omp_get_num_procs();
  omp_set_num_threads(n);
}

int NumThreads() { return omp_get_max_threads(); }

void ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
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

}  // namespace phasor

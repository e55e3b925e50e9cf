// The one way into threads.
//
// ParallelFor(n, grain, fn) calls fn(begin, end) on disjoint ranges that cover
// [0, n). It runs serially (one call fn(0, n)) when the work is small (n < 2 *
// grain), when only one thread is allowed, or when already inside a parallel
// region, so OpenMP is never nested or oversubscribed. Ranges are contiguous
// and in order per thread (static schedule).
#pragma once

#include <cstdint>
#include <functional>

namespace phasor {

// Sets how many threads ParallelFor may use (0: the OpenMP default).
void SetNumThreads(int n);
// The number of threads ParallelFor uses for large work.
int NumThreads();

void ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace phasor

#include "engine/parallel.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace phasor {
namespace {

// True on a thread while it runs a ParallelTasks task (caller or worker):
// parallel calls made from inside run serially, as inside an OpenMP region.
thread_local bool t_in_task = false;

// How long a caller whose tasks are all taken polls for the workers' last ones
// to end before it sleeps (TaskPool::Run).
constexpr std::chrono::microseconds kFinishPoll{50};

// A spin-wait hint to the core (x86 pause), or nothing.
inline void Pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

void SetNumThreads(int n) {
  // 0: OpenMP's own default, read before any call changed it: OMP_NUM_THREADS
  // if set, else one per processor.
  static const int default_threads = omp_get_max_threads();
  omp_set_num_threads(n > 0 ? n : default_threads);
}

int NumThreads() { return omp_get_max_threads(); }

namespace {

// The workers of one calling thread for ParallelTasks. Unlike an OpenMP
// team, a worker waits for work asleep (no spinning) and the caller never
// waits for a worker that has not started: a worker that wakes after every
// task is taken finds the job closed and goes back to sleep. On a machine
// busy with other work this matters more than anything else: a spinning or
// descheduled worker can hold a fork-join region up for a whole time slice
// (measured: toy model, 8 x 128 tokens, 2 threads on 2 busy cores, 0.35 s
// with OpenMP's default wait policy, 0.15 s asleep).
//
// Tasks are split into one contiguous range per slot, and a thread takes the
// tasks of its own range first, in order, then those left in the others'
// ranges. So on a quiet machine slot s runs the same share of every call: the
// s-th block of rows of one layer's pass is the s-th of the next, and a pass
// reads rows its own core wrote and still has in its cache. A thread that
// starts late or is slowed loses its tasks to the others, as with one shared
// queue.
//
// Only the caller polls, and only at the end of a call, for at most
// kFinishPoll, while the workers end their last tasks (measured, d512 1 x 512,
// 2 threads: float32 1.02x, bfloat16 1.01x, int8 1.00x; on 2,000 corpus lines
// and with two busy loops on the same cores, level).
class TaskPool {
 public:
  TaskPool() = default;
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;
  ~TaskPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& w : workers_) w.join();
  }

  void Run(int64_t tasks, int threads, FunctionRef<void(int64_t, int)> fn) {
    if (threads > capacity_) {
      // No worker is inside a job here: the last Run waited for them all.
      ranges_ = std::make_unique<Range[]>(static_cast<size_t>(threads));
      capacity_ = threads;
    }
    while (static_cast<int>(workers_.size()) < threads - 1) {
      const int slot = static_cast<int>(workers_.size()) + 1;
      workers_.emplace_back([this, slot] { WorkerLoop(slot); });
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      fn_ = &fn;
      threads_ = threads;
      for (int s = 0; s < threads; ++s) {
        ranges_[s].next.store(tasks * s / threads, std::memory_order_relaxed);
        ranges_[s].end = tasks * (s + 1) / threads;
      }
      open_ = true;
      ++generation_;
    }
    wake_.notify_all();
    Work(0);
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = false;  // workers that have not joined yet will not
    }
    // Every task is taken; the workers inside the job are running their last.
    // Polled for a while before sleeping: asleep, the caller would first be
    // woken by the last of them, a wake-up that costs more than that task's
    // end on a virtual machine. Bounded, so that on a machine busy with other
    // work a descheduled worker costs the caller a sleep, not a time slice.
    const auto give_up = std::chrono::steady_clock::now() + kFinishPoll;
    for (int i = 1; busy_.load(std::memory_order_acquire) != 0; ++i) {
      if (i % 64 == 0 && std::chrono::steady_clock::now() > give_up) break;
      Pause();
    }
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [this] { return busy_.load(std::memory_order_acquire) == 0; });
  }

 private:
  // Runs the tasks left in slot's range, then in the ranges after it.
  void Work(int slot) {
    t_in_task = true;
    for (int i = 0; i < threads_; ++i) {
      Range& r = ranges_[(slot + i) % threads_];
      for (int64_t t = r.next.fetch_add(1, std::memory_order_relaxed); t < r.end;
           t = r.next.fetch_add(1, std::memory_order_relaxed)) {
        (*fn_)(t, slot);
      }
    }
    t_in_task = false;
  }

  void WorkerLoop(int slot) {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        if (!open_ || slot >= threads_) continue;
        busy_.fetch_add(1, std::memory_order_relaxed);
      }
      Work(slot);
      {
        std::lock_guard<std::mutex> lock(mu_);
        busy_.fetch_sub(1, std::memory_order_release);  // the tasks' writes with it
      }
      done_.notify_one();
    }
  }

  // Slot s's share of a job: tasks [next, end) not yet taken. On a cache line
  // of its own, so that taking a task does not slow the other slots.
  struct alignas(64) Range {
    std::atomic<int64_t> next{0};
    int64_t end = 0;
  };

  std::vector<std::thread> workers_;  // worker i has slot i + 1; the caller has slot 0
  std::mutex mu_;
  std::condition_variable wake_, done_;
  const FunctionRef<void(int64_t, int)>* fn_ = nullptr;
  std::unique_ptr<Range[]> ranges_;  // [capacity_]: the current job's ranges, [threads_] used
  int capacity_ = 0;
  int threads_ = 0;
  uint64_t generation_ = 0;
  bool open_ = false;
  bool stop_ = false;
  // Workers inside the current job: changed under mu_ (for done_), read
  // without it while the caller polls.
  std::atomic<int> busy_{0};
};

}  // namespace

void ParallelTasks(int64_t tasks, int max_slots, FunctionRef<void(int64_t, int)> fn) {
  if (tasks <= 0) return;
  int threads = NumThreads();
  if (max_slots > 0) threads = std::min(threads, max_slots);
  threads = static_cast<int>(std::min<int64_t>(threads, tasks));
  if (threads <= 1 || t_in_task || omp_in_parallel()) {
    for (int64_t t = 0; t < tasks; ++t) fn(t, 0);
    return;
  }
  // One pool per calling thread: concurrent callers never share workers.
  thread_local TaskPool pool;
  pool.Run(tasks, threads, fn);
}

}  // namespace phasor

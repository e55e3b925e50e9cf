// ParallelTasks (engine/parallel.h), the one way into threads: every task once,
// on a slot below the limit, each slot from its own share, a stalled slot's
// share taken by the others, and a return only after the last task has ended.
#include "engine/parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "tests/support/kernel_test_util.h"

namespace phasor::kernels {
namespace {

using phasor::testing::ThreadsGuard;

TEST(ParallelTasksTest, EveryTaskRunsOnceOnASlotBelowTheLimit) {
  ThreadsGuard guard;
  SetNumThreads(2);
  for (int max_slots : {0, 1, 2, 5}) {
    std::vector<int> runs(1000, 0), slots(1000, -1);
    ParallelTasks(1000, max_slots, [&](int64_t t, int slot) {
      ++runs[t];  // each task touches only its own entries
      slots[t] = slot;
    });
    EXPECT_EQ(std::count(runs.begin(), runs.end(), 1), 1000);
    const int limit = max_slots > 0 ? std::min(max_slots, 2) : 2;
    for (int slot : slots) EXPECT_TRUE(slot >= 0 && slot < limit) << slot;
  }
  // Inside a task, ParallelTasks runs serially on the caller (slot 0, in order).
  std::vector<int> inner(4, 0);
  ParallelTasks(4, 0, [&](int64_t t, int) {
    ParallelTasks(
        3, 0, [&](int64_t u, int slot) { inner[t] = inner[t] * 10 + (slot == 0 ? 1 + u : 100); });
  });
  EXPECT_EQ(inner, std::vector<int>(4, 123));
}

// Waits until done() holds or 10 s have passed; returns done().
template <class Done>
bool WaitFor(Done done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return done();
}

TEST(ParallelTasksTest, EachSlotStartsAtItsOwnShare) {
  ThreadsGuard guard;
  SetNumThreads(2);
  for (int64_t tasks : {2, 9, 64}) {
    // Slot 0's first task waits for slot 1 to take one (if it comes within
    // 10 s), and slot 1's tasks wait for slot 0 to have begun: so each
    // takes the first task of its share before anyone else can.
    std::atomic<int64_t> first0{-1}, first1{-1};
    ParallelTasks(tasks, 0, [&](int64_t t, int slot) {
      if (slot == 0) {
        int64_t none = -1;
        if (first0.compare_exchange_strong(none, t)) WaitFor([&] { return first1 >= 0; });
      } else {
        int64_t none = -1;
        first1.compare_exchange_strong(none, t);
        WaitFor([&] { return first0 >= 0; });
      }
    });
    EXPECT_EQ(first0, 0) << tasks;
    if (first1 >= 0) {  // shares [0, tasks/2) and [tasks/2, tasks)
      EXPECT_EQ(first1, tasks / 2) << tasks;
    }
  }
}

TEST(ParallelTasksTest, AStalledSlotLosesItsShareToTheOthers) {
  ThreadsGuard guard;
  SetNumThreads(2);
  constexpr int64_t kTasks = 64;
  std::vector<int> runs(kTasks, 0);
  std::atomic<int> done{0};
  std::atomic<bool> stalled{false}, released{true};
  ParallelTasks(kTasks, 0, [&](int64_t t, int slot) {
    // Slot 1's first task holds it until every other task has run: the
    // caller must take the rest of slot 1's share, or this waits 10 s and fails.
    if (slot == 1 && !stalled.exchange(true)) {
      released = WaitFor([&] { return done.load() == kTasks - 1; });
    }
    ++runs[t];  // each task touches only its own entry
    ++done;
  });
  EXPECT_TRUE(released);
  EXPECT_EQ(std::count(runs.begin(), runs.end(), 1), kTasks);
}

// The caller, its own tasks done, polls a while for the workers' last tasks
// and then sleeps: it must return only once they have ended, whatever they
// take. Task 0 (the caller's) holds the caller until task 1 has started on the
// worker, which then outlasts the polling 40 times over.
TEST(ParallelTasksTest, ReturnsOnlyWhenAWorkersLastTaskHasEnded) {
  ThreadsGuard guard;
  SetNumThreads(2);
  for (int round = 0; round < 5; ++round) {
    std::vector<int> written(2, 0);  // plain ints: the call's return must publish them
    std::atomic<bool> started{false};
    bool on_worker = false;
    ParallelTasks(2, 0, [&](int64_t t, int slot) {
      if (t == 0) {
        on_worker = WaitFor([&] { return started.load(); });
      } else {
        started = true;
        if (slot == 1) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      written[t] = 1;
    });
    EXPECT_TRUE(on_worker) << "round " << round << ": task 1 never started";
    EXPECT_EQ(written, (std::vector<int>{1, 1})) << "round " << round;
  }
}

}  // namespace
}  // namespace phasor::kernels

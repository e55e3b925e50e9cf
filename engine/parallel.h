// The one way into threads: ParallelTasks. Every parallel loop of phasor (the
// products, attention, feed-forward, layer norm, and the positional layers'
// rows through RotationRows::ForEachTask) hands its work out as tasks to the
// calling thread and workers of its own that sleep between calls; OpenMP sets
// the thread count (OMP_NUM_THREADS, SetNumThreads) and is never entered.
//
// Why not an OpenMP parallel region: it ends in a barrier that waits for every
// thread of the team, also one the OS has not run yet, so on a machine busy
// with other work a call can lose a whole time slice there; on a quiet machine
// the two cost the same (CHANGELOG, ParallelTasks, has the measurements).
// Here the caller never waits for a worker that has not started.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

namespace phasor {

// A non-owning reference to a callable (as absl::FunctionRef): converting a
// lambda to it never allocates, unlike std::function with a large capture, so
// a forward pass that hands lambdas to ParallelTasks allocates nothing. Valid
// while the callable lives (a temporary lambda: until the end of the call).
template <class Sig>
class FunctionRef;
template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef> &&
                                              std::is_invocable_r_v<R, F&, Args...>>>
  FunctionRef(F&& f)  // NOLINT(google-explicit-constructor): lambdas convert implicitly
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* object, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(object))(std::forward<Args>(args)...);
        }) {}
  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

// Sets how many threads ParallelTasks may use (0: OMP_NUM_THREADS if set, else
// one per processor).
void SetNumThreads(int n);
// The number of threads ParallelTasks uses at most.
int NumThreads();

// Calls fn(task, slot) once for every task in [0, tasks) on at most
// min(NumThreads(), max_slots) threads (max_slots < 1: NumThreads()): the
// calling thread and workers of its own that sleep between calls. Each thread
// first takes, in order, the tasks of its own contiguous share (slot s of T:
// [tasks·s/T, tasks·(s+1)/T)), so consecutive calls over the same rows keep
// each row on one core; then whatever is left of the others' shares. The
// caller works too and waits only for workers that have started, so a worker
// slowed by other work on the machine loses its tasks instead of holding the
// call up. slot, in [0, that count), names the thread running the task:
// per-thread scratch can be indexed by it. What fn computes must not depend on
// slot or on the order of tasks, so results do not depend on the thread count.
// fn must not throw. Serial (slot 0, tasks in order) for one thread or one
// task, or inside a parallel region or a task.
void ParallelTasks(int64_t tasks, int max_slots, FunctionRef<void(int64_t, int)> fn);

}  // namespace phasor

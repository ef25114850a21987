// One steal attempt on one victim's two deques (SLAW Routine 1, step 2), shared by the scheduler
// modules that pick victims among workers (work_stealing, placed_stealing).
#pragma once

#include "slaw/detail/worker.hpp"

namespace slaw::detail {

// Takes the oldest entry of victim `v`'s preempted deque or of its fresh deque, in the order
// `preempted_first` says; an empty-looking preempted deque is asked to expose part of its private
// region (`thief`, the taking worker's index, is recorded with the request: split_deque's expose
// window). Returns the task (detached and counted, see worker::yield_continuation) and where it came
// from, or null. Counts nothing on the thief's side: the caller decides whether this is a steal.
inline promise_base* take_from_victim(worker& v, bool preempted_first, steal_from& from, unsigned thief) noexcept {
  for (int d = 0; d < 2; ++d) {
    const bool preempted = (d == 0) == preempted_first;
    if (preempted) {
      if (v.preempted_deque().looks_empty()) {
        v.preempted_deque().request_split(thief);  // the owner exposes part of its private region
        continue;
      }
      if (promise_base* p = v.yield_continuation(thief)) {
        from = steal_from::continuation;
        return p;
      }
    } else if (promise_base* p = v.yield_fresh(thief)) {
      from = steal_from::fresh;
      return p;
    }
  }
  return nullptr;
}

// Counts a steal by `thief` from victim index `vi` of a task taken by take_from_victim.
inline void count_victim_steal(worker& thief, steal_from from, std::size_t vi) noexcept {
  thief.count_steal(from, static_cast<int>(vi));
  if (from == steal_from::continuation) thief.publish_next_push();
}

}  // namespace slaw::detail

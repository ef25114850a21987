// Ready tasks that a worker waiting in place took but may not run (docs/design/finish.md, "Waiting in
// place"): a scope left without end_finish makes its thread wait for the scope's tasks, and that thread
// may only run tasks inside the scope. What it steals otherwise is put here, already counted in its
// finish and ready to resume. Free workers run these first-in first-out before they steal; a waiting
// worker takes the first one that is inside its own scope.
//
// Each task keeps the thief's hand-over note (worker::hand_over_steal), so that a timeline trace shows
// its start as the steal that took it.
//
// Rare by construction (only waits in place steal into it), so one mutex is enough. `size_` lets the
// hot idle loop and the parking re-check look without the lock; it is seq_cst so that the parking
// protocol's re-check (docs/design/parking.md) sees a task put here before the putter's wake-up call.
// Out of memory in put() ends the process (it runs inside a noexcept steal), as a deque that cannot
// grow does (docs/design/deques.md).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>

namespace slaw::detail {

struct promise_base;

class set_aside_queue {
 public:
  void put(promise_base* p, std::uint64_t note) {
    std::lock_guard<std::mutex> g(m_);
    q_.push_back({p, note});
    size_.fetch_add(1, std::memory_order_seq_cst);
  }
  bool nonempty() const noexcept { return size_.load(std::memory_order_seq_cst) != 0; }
  // The first task for which `eligible(task)` holds, removed, and its note; null if none.
  template <class Pred>
  promise_base* take_first(Pred eligible, std::uint64_t& note) {
    if (!nonempty()) return nullptr;
    std::lock_guard<std::mutex> g(m_);
    for (auto it = q_.begin(); it != q_.end(); ++it) {
      if (!eligible(it->task)) continue;
      promise_base* p = it->task;
      note = it->note;
      q_.erase(it);
      size_.fetch_sub(1, std::memory_order_seq_cst);
      return p;
    }
    return nullptr;
  }

 private:
  struct item {
    promise_base* task;
    std::uint64_t note;
  };
  std::mutex m_;
  std::deque<item> q_;
  std::atomic<std::uint32_t> size_{0};
};

}  // namespace slaw::detail

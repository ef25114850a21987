// Time-sharing of P cores among more runnable workers than cores: --arbiter off, where every job runs
// all its workers as slaw does today and the OS shares the cores (docs/simulation.md, "Several jobs").
//
// A core runs one worker at a time. A worker whose next event is due takes a free core, else waits in
// one FIFO run queue, keeping the time its event still had to go. A worker gives its core up when it
// sleeps (the futex) or its job ends, and the first waiter takes it. A worker that has held its core
// for a time slice while others wait is preempted to the back of the queue (round robin: CFS's
// fairness without its weights or its wake-up preemption). Context switches cost nothing here; a
// spinning thief burns its slice exactly as a working one does, which is the waste this models.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "sim/event_queue.hpp"

namespace slaw::sim {

class core_sharing {
 public:
  static constexpr std::uint32_t nobody = 0xFFFFFFFFu;
  struct handoff {
    std::uint32_t worker = nobody;  // who got the core (nobody: it stays free)
    time_ps left = 0;               // how long after now that worker's event comes
  };

  core_sharing(std::uint32_t cores, time_ps slice, std::uint32_t workers)
      : slice_(slice), holder_(cores, nobody), slice_end_(cores, 0), core_of_(workers, nobody), waiting_(workers, 0) {
    for (std::uint32_t c = cores; c-- > 0;) free_.push_back(c);
  }

  bool holds(std::uint32_t w) const noexcept { return core_of_[w] != nobody; }
  bool waiting(std::uint32_t w) const noexcept { return waiting_[w] != 0; }

  // w's event is due: true if a core was free (w's slice starts now).
  bool acquire(std::uint32_t w, time_ps now) {
    if (holds(w)) return true;
    if (free_.empty()) return false;
    give(free_.back(), w, now);
    free_.pop_back();
    return true;
  }

  // w waits for a core; its event comes `left` after it gets one.
  void wait(std::uint32_t w, time_ps left) {
    queue_.push_back({w, left});
    waiting_[w] = 1;
  }

  // w gives its core up (it sleeps, or its job ended); the first waiter takes it.
  handoff release(std::uint32_t w, time_ps now) {
    const std::uint32_t c = core_of_[w];
    if (c == nobody) return {};
    core_of_[w] = nobody;
    holder_[c] = nobody;
    if (queue_.empty()) {
      free_.push_back(c);
      return {};
    }
    const handoff next = queue_.front();
    queue_.pop_front();
    waiting_[next.worker] = 0;
    give(c, next.worker, now);
    return next;
  }

  // w leaves the run queue without running (its job ended).
  void forget(std::uint32_t w) {
    if (!waiting_[w]) return;
    waiting_[w] = 0;
    queue_.erase(std::find_if(queue_.begin(), queue_.end(), [w](const handoff& h) { return h.worker == w; }));
  }

  // When the next slice ends while someone waits (never if nobody waits).
  time_ps next_expiry() const noexcept {
    if (queue_.empty()) return never;
    time_ps t = never;
    for (std::size_t c = 0; c < holder_.size(); ++c)
      if (holder_[c] != nobody) t = std::min(t, slice_end_[c]);
    return t;
  }

  // The worker whose slice has ended by `now` while someone waits, the lowest core first; nobody if none.
  std::uint32_t expired(time_ps now) const noexcept {
    if (queue_.empty()) return nobody;
    for (std::size_t c = 0; c < holder_.size(); ++c)
      if (holder_[c] != nobody && slice_end_[c] <= now) return holder_[c];
    return nobody;
  }

  // Preempts `w` (its event was `left` away) to the back of the queue; the first waiter takes its core.
  handoff rotate(std::uint32_t w, time_ps left, time_ps now) {
    wait(w, left);
    return release(w, now);
  }

 private:
  void give(std::uint32_t c, std::uint32_t w, time_ps now) {
    holder_[c] = w;
    core_of_[w] = c;
    slice_end_[c] = now + slice_;
  }

  time_ps slice_;
  std::vector<std::uint32_t> holder_;
  std::vector<time_ps> slice_end_;
  std::vector<std::uint32_t> free_;
  std::vector<std::uint32_t> core_of_;
  std::vector<std::uint8_t> waiting_;
  std::deque<handoff> queue_;
};

}  // namespace slaw::sim

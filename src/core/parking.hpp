// Idle workers: bounded spinning, then sleep on a futex (eventcount protocol, no lost wake-ups).
//
// State: `searching` = workers looking for work, `sleepers` = workers asleep, `event` = a counter
// that every wake increments (the futex word).
// Sleeper:  e = event; sleepers++ (seq_cst); re-check for visible work; if none, futex_wait(event, e).
// Waker:    publish work; event++ (seq_cst); if sleepers > 0: futex_wake.
// Either the sleeper's re-check sees the work, or the waker's load sees the sleeper and the changed
// event makes futex_wait return at once. Both sides use seq_cst, so one of the two must happen.
//
// Who wakes whom: new root tasks (runtime::run) wake one sleeper; a worker that finds work while it
// was the last searcher wakes one more (so someone keeps searching while work spreads); shutdown
// wakes all. Work in a worker's private deque region is only ever published on a thief's request, so
// a sleeper cannot see it: the last searcher therefore sleeps with a timeout (backing off to 2 ms)
// while any worker is busy, and for good only when all are idle (an idle runtime uses ~0% CPU).
#pragma once

#include <atomic>
#include <cstdint>

namespace slaw::core {

void futex_wait(std::atomic<std::uint32_t>* addr, std::uint32_t expected, long timeout_ns) noexcept;  // <0: none
void futex_wake(std::atomic<std::uint32_t>* addr, int n) noexcept;

struct parking_lot {
  alignas(64) std::atomic<std::uint32_t> event{0};
  alignas(64) std::atomic<std::uint32_t> sleepers{0};
  alignas(64) std::atomic<std::uint32_t> searching{0};
  std::atomic<std::uint32_t> idle{0};  // searching + sleeping

  void wake_one() noexcept {
    event.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers.load(std::memory_order_seq_cst) > 0) futex_wake(&event, 1);
  }
  void wake_all() noexcept {
    event.fetch_add(1, std::memory_order_seq_cst);
    futex_wake(&event, 1 << 30);
  }
};

}  // namespace slaw::core

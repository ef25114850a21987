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

#include "slaw/policy/idle.hpp"

namespace slaw::detail {

void futex_wait(std::atomic<std::uint32_t>* addr, std::uint32_t expected, long timeout_ns) noexcept;  // <0: none
void futex_wake(std::atomic<std::uint32_t>* addr, int n) noexcept;

// Invariant (no lost wake-up): a worker that sleeps without a timeout either saw, in its re-check, every
// place work could be made visible, or some waker's event increment came after its `event` read, so
// its futex_wait returns at once. Liveness does not depend on waking (docs/design/parking.md): it only
// decides how fast parallelism spreads.
struct parking_lot {
  alignas(64) std::atomic<std::uint32_t> event{0};
  alignas(64) std::atomic<std::uint32_t> sleepers{0};
  alignas(64) std::atomic<std::uint32_t> searching{0};
  std::atomic<std::uint32_t> idle{0};  // searching + sleeping

  // ---- waker half ----
  void wake_one() noexcept {
    event.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers.load(std::memory_order_seq_cst) > 0) futex_wake(&event, 1);
  }
  // Work only some workers may take appeared (a place's mailbox): wake every sleeper, so that one of
  // those may take it (each re-checks and sleeps again if it may not).
  void wake_all_if_sleepers() noexcept {
    event.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers.load(std::memory_order_seq_cst) > 0) futex_wake(&event, 1 << 30);
  }
  void wake_all() noexcept {
    event.fetch_add(1, std::memory_order_seq_cst);
    futex_wake(&event, 1 << 30);
  }
  // Work was exposed at a thief's request or handed over: the requester may have gone to sleep since.
  void wake_if_nobody_searches() noexcept {
    if (policy::wake_on_exposed(sleepers.load(std::memory_order_seq_cst), searching.load(std::memory_order_seq_cst)))
      wake_one();
  }

  // ---- searcher and sleeper half ----
  // A worker out of its own work starts searching (it counts as idle until it finds some).
  void start_searching() noexcept {
    idle.fetch_add(1, std::memory_order_seq_cst);
    searching.fetch_add(1, std::memory_order_seq_cst);
  }
  // It found work. If it was the last searcher it wakes one more, so that while work spreads someone
  // keeps looking (the cascade).
  void found_work() noexcept {
    std::uint32_t before = searching.fetch_sub(1, std::memory_order_seq_cst);
    idle.fetch_sub(1, std::memory_order_seq_cst);
    if (policy::wake_on_found(before, sleepers.load(std::memory_order_seq_cst))) wake_one();
  }
  // It stops (shutdown).
  void stop_searching() noexcept {
    searching.fetch_sub(1, std::memory_order_seq_cst);
    idle.fetch_sub(1, std::memory_order_seq_cst);
  }
  // The sleeper's half of the eventcount: read `event`, register as a sleeper, re-check every place
  // where visible work could be (`work_visible`, seq_cst reads), and only then wait for `event` to
  // change. Returns false at once when the re-check found work. Private deque regions are invisible
  // to the re-check, so while any worker is busy the last searcher sleeps with a timeout (`backoff_ns`,
  // doubling to 2 ms) and asks again; when every worker is idle all sleep without one.
  template <class Recheck>
  bool sleep(Recheck work_visible, unsigned workers, std::int64_t& backoff_ns, const policy::idle_params& p,
             bool every_sleeper_polls = false) noexcept {
    std::uint32_t e = event.load(std::memory_order_seq_cst);
    sleepers.fetch_add(1, std::memory_order_seq_cst);
    std::uint32_t searchers_left = searching.fetch_sub(1, std::memory_order_seq_cst) - 1;
    if (work_visible()) {
      sleepers.fetch_sub(1, std::memory_order_seq_cst);
      searching.fetch_add(1, std::memory_order_seq_cst);
      return false;
    }
    const bool timed =
        policy::timed_sleep(searchers_left, idle.load(std::memory_order_seq_cst), workers, every_sleeper_polls);
    futex_wait(&event, e, timed ? static_cast<long>(backoff_ns) : -1);
    if (timed) backoff_ns = policy::next_backoff(backoff_ns, p);
    sleepers.fetch_sub(1, std::memory_order_seq_cst);
    searching.fetch_add(1, std::memory_order_seq_cst);
    return true;
  }
};

}  // namespace slaw::detail

// The DFDeques memory quota of one worker (Narlikar, "Scheduling Threads for Low Space Requirement and
// Good Locality", SPAA 1999, §3.3; docs/design/space.md §3, docs/design/policy.md).
//
// A worker may allocate K bytes net between two steals: every steal starts a new period with nothing
// used. `live` below is the worker's live bytes (frames + user memory) at the moment of the call;
// usage is net, so frees credit it. The quota is checked before an allocation can happen, in two ways:
//  - a coroutine frame is allocated by the code that then spawns or calls it, where no task can stop.
//    A frame that crosses the limit is not charged to this period: it is deferred to whoever starts
//    the task (`take_deferred`, then `charge` after that worker's steal), and the worker is asked to
//    give up its deque at the spawn or call (`preempt_pending`);
//  - user memory: `plan_reservation` says what co_await slaw::reserve(m) must do first. The
//    synchronous slaw::allocate cannot wait: it is charged, and its excess is reported as an overrun.
// Plain integers only: the frame allocator holds one of these per worker; a simulator can too.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

namespace slaw::policy {

enum class memory_kind : std::uint8_t { frame, user };

class quota {
 public:
  void enable(std::int64_t k, std::int64_t live) noexcept {
    enabled_ = true;
    k_ = k;
    new_period(live);
  }
  void disable() noexcept {
    enabled_ = false;
    preempt_ = false;
    unclaimed_deferred_ = 0;
  }
  // A steal (or a root task): a new period with nothing used. Reservations do not carry over.
  void new_period(std::int64_t live) noexcept {
    base_ = live;
    deferred_ = 0;
    reserved_ = 0;
    period_max_ = live;
    preempt_ = false;
    unclaimed_deferred_ = 0;
  }

  bool enabled() const noexcept { return enabled_; }
  std::int64_t k() const noexcept { return k_; }
  // Net bytes this period: what was allocated, less frees, less deferred frames, plus charges.
  std::int64_t used(std::int64_t live) const noexcept { return live - base_ - deferred_; }
  // Whether `bytes` >= 0 more fit in this period (always, without a quota); cannot overflow.
  bool fits(std::int64_t bytes, std::int64_t live) const noexcept { return !enabled_ || used(live) <= k_ - bytes; }
  // The quota is spent: give up the deque at the next scheduling point (a spawn, a call, a finish body).
  bool preempt_pending() const noexcept { return preempt_; }
  // The allocator must call after_allocation once `live` exceeds this: where the limit is crossed or a
  // new highest `live` of the period is reached. No quota: never.
  std::int64_t watch_above() const noexcept {
    return enabled_ ? std::min(base_ + deferred_ + k_, period_max_) : std::numeric_limits<std::int64_t>::max();
  }
  std::int64_t reserved() const noexcept { return reserved_; }

  // What an allocation of n bytes of `kind` that brought the live bytes to `live` did to the quota:
  // the usage after it and the bytes of user memory over the limit (for the counters).
  struct outcome {
    std::int64_t used = 0;
    std::int64_t overrun = 0;
  };
  outcome after_allocation(std::int64_t n, memory_kind kind, std::int64_t live) noexcept {
    if (!enabled_) return {};
    outcome o{used(live), 0};
    if (o.used > k_) {
      if (kind == memory_kind::frame) {  // charged to whoever starts the frame's task
        deferred_ += n;
        unclaimed_deferred_ += n;
      } else {  // cannot wait: charged, the excess counted
        o.overrun = std::min(n, o.used - k_);
      }
      preempt_ = true;
      o.used = used(live);
    }
    period_max_ = std::max(period_max_, live);
    return o;
  }
  // Frame bytes deferred since the last call: the started task's `start_charge`.
  std::int64_t take_deferred() noexcept { return std::exchange(unclaimed_deferred_, 0); }
  // Charges bytes allocated elsewhere to this period (a frame handed over by a give-up). Returns the usage.
  std::int64_t charge(std::int64_t bytes, std::int64_t live) noexcept {
    base_ -= bytes;
    return used(live);
  }
  // Pre-charges `bytes` that the next allocations consume without being charged again. Returns the usage.
  std::int64_t reserve(std::int64_t bytes, std::int64_t live) noexcept {
    reserved_ += bytes;
    return charge(bytes, live);
  }
  // Reserves without charging: an allocation larger than K, paid for by floor(m/K) dummy tasks.
  void reserve_large(std::int64_t bytes) noexcept { reserved_ += bytes; }
  // The part of an allocation of `bytes` that a reservation covers: used up, and not charged again
  // (the base moves up by it, and the allocation that follows adds it back).
  std::int64_t consume_reservation(std::int64_t bytes) noexcept {
    if (reserved_ == 0) return 0;
    const std::int64_t take = std::min(bytes, reserved_);
    reserved_ -= take;
    base_ += take;
    return take;
  }

 private:
  bool enabled_ = false;
  bool preempt_ = false;
  std::int64_t k_ = 0;
  std::int64_t base_ = 0;        // live bytes at the period's start, less charges and reservations
  std::int64_t deferred_ = 0;    // frames allocated over the limit this period (not this period's to pay)
  std::int64_t unclaimed_deferred_ = 0;  // the part of them not yet handed to a task by take_deferred
  std::int64_t reserved_ = 0;    // reserved and not yet allocated
  std::int64_t period_max_ = 0;  // the highest `live` seen this period
};

// What co_await slaw::reserve(m) does first under a quota of k > 0 bytes (Narlikar §3.3): m <= k waits
// until m fits the period (giving up the deque meanwhile), then reserves it; a larger m first runs
// floor(m/k) no-op dummy tasks, each costing a give-up and a steal, and is then reserved uncharged.
// A size no allocation could ever satisfy is refused before any dummy runs: it would take
// m/k give-ups (seconds to forever) only to fail.
enum class reservation_step : std::uint8_t { wait_for_quota, run_dummy_tasks, impossible };
struct reservation_plan {
  reservation_step step;
  std::uint64_t dummy_tasks;
  friend constexpr bool operator==(const reservation_plan&, const reservation_plan&) noexcept = default;
};

// `most_reservable()`: the most one task could ever allocate (machine memory, RLIMIT_AS, the
// allocator's limit); called only when m > k, since finding it costs system calls.
template <class MostReservable>
constexpr reservation_plan plan_reservation(std::uint64_t m, std::int64_t k, MostReservable&& most_reservable) {
  const auto quota_bytes = static_cast<std::uint64_t>(k);
  if (m <= quota_bytes) return {reservation_step::wait_for_quota, 0};
  if (m > static_cast<std::uint64_t>(most_reservable())) return {reservation_step::impossible, 0};
  return {reservation_step::run_dummy_tasks, m / quota_bytes};
}

}  // namespace slaw::policy

// Contended cache lines (docs/simulation.md, "Contention"): a word that several workers write — a
// victim's deque indices and split request, a finish's counter, DFDeques' lock on R — lives in one
// cache line that only one core can hold for writing at a time. An access by a worker that does not
// hold the line waits until the line is free (the accesses before it are done) and then pays the
// line's transfer between cores; an access by the holder costs nothing more. k workers hammering one
// line therefore queue, and each access costs about k transfers: the cost grows with the contenders.
// With a transfer of 0 and no hold time a line never delays anyone (the model without contention).
#pragma once

#include <algorithm>
#include <cstdint>

#include "sim/event_queue.hpp"

namespace slaw::sim {

struct contended_line {
  static constexpr std::uint32_t nobody = 0xFFFFFFFFu;
  time_ps free_at = 0;             // when the last access queued on it is done
  std::uint32_t holder = nobody;   // the worker whose cache has it

  // Worker `who` accesses the line at `now` and keeps it for `hold` (its own work on the line). Returns
  // the delay from `now` until the access is done: the wait for earlier accesses, the transfer if
  // another worker held it, the hold.
  time_ps touch(time_ps now, std::uint32_t who, time_ps transfer, time_ps hold = 0) noexcept {
    if (holder == who && free_at <= now) {
      free_at = now + hold;
      return hold;
    }
    const time_ps start = std::max(now, free_at);
    free_at = start + (holder == who ? 0 : transfer) + hold;
    holder = who;
    return free_at - now;
  }
};

}  // namespace slaw::sim

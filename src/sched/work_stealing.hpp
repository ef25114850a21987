// SLAW's adaptive work stealing (SLAW, Guo et al. IPDPS 2010, §3.3): a thief picks random victims and
// takes the oldest entry of one of their two deques (preempted continuations or fresh tasks).
#pragma once

#include <memory>
#include <vector>

#include "core/scheduler.hpp"
#include "sched/set_aside.hpp"

namespace slaw::detail {

class work_stealing final : public scheduler {
 public:
  // `workers` is filled by the runtime after construction; it outlives the scheduler's use of it.
  work_stealing(const std::vector<std::unique_ptr<worker>>& workers, bool preempted_first) noexcept
      : workers_(workers), preempted_first_(preempted_first) {}

  promise_base* steal(worker& thief, const finish_node* inside) noexcept override;
  bool holds_work() const noexcept override { return set_aside_.nonempty(); }

 private:
  // One probe round: at most policy::steal_probes random victims, so that an idle worker's search (and
  // a large runtime's start-up) costs O(1) per round, not O(p); the parking re-check still looks at
  // everyone.
  promise_base* probe(worker& thief) noexcept;

  const std::vector<std::unique_ptr<worker>>& workers_;
  const bool preempted_first_;
  set_aside_queue set_aside_;
};

}  // namespace slaw::detail

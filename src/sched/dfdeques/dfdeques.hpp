// DFDeques(K) (Narlikar, SPAA 1999; docs/design/space.md): the space-efficient variant. Workers run
// work-first; a worker whose memory quota K is spent gives its deque up to the ordered list R, and
// thieves steal from the leftmost deques of R, so that the schedule stays close to the serial
// depth-first one (S1 + O(K·p·D) space).
#pragma once

#include <cstddef>

#include "core/scheduler.hpp"
#include "sched/dfdeques/deque_list.hpp"

namespace slaw::detail {

class dfdeques final : public scheduler {
 public:
  dfdeques(unsigned workers, std::size_t quota);
  ~dfdeques() override;

  void configure_workers(config& c) const override;
  void attach(worker& w) override;
  promise_base* steal(worker& thief, const finish_node* inside) noexcept override;
  void begin_root(worker& w, promise_base* root) noexcept override;
  void begin_resumed(worker& w, promise_base* frame) noexcept override;
  void give_up(worker& w) noexcept override { list_.give_up(w); }
  bool yields_by_give_up() const noexcept override { return true; }
  void* begin_wait(worker& w, const finish_node* f) noexcept override { return list_.begin_wait(w, f).placeholder; }
  void end_wait(worker& w, void* anchor) noexcept override { list_.end_wait(w, {anchor}); }
  bool holds_work() const noexcept override { return list_.has_abandoned_work(); }
  void add_stats(runtime_stats& s) const override;
  void reset_stats() override { list_.reset_counters(); }

 private:
  deque_list list_;
  const std::size_t quota_;
};

}  // namespace slaw::detail

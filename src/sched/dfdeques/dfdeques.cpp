#include "sched/dfdeques/dfdeques.hpp"

#include <limits>

#include "slaw/config.hpp"
#include "slaw/detail/serial_order.hpp"
#include "slaw/detail/worker.hpp"
#include "slaw/stats.hpp"

namespace slaw::detail {

dfdeques::dfdeques(unsigned workers, std::size_t quota) : list_(workers), quota_(quota) {
  serial_order_active.fetch_add(1, std::memory_order_relaxed);  // debug builds label frames (Lemma 3.1)
}

dfdeques::~dfdeques() { serial_order_active.fetch_sub(1, std::memory_order_relaxed); }

// Work-first by definition (Fig. 5: a fork pushes the parent and runs the child); the space bound
// comes from the quota, so ADP's stack condition is off.
void dfdeques::configure_workers(config& c) const {
  c.policy = policy::mode::wf;
  c.adp.S = std::numeric_limits<std::uint32_t>::max() / 2;
}

void dfdeques::attach(worker& w) {
  if (quota_ != quota_infinite) w.allocator()->quota_enable(static_cast<std::int64_t>(quota_));
}

promise_base* dfdeques::steal(worker& thief, const finish_node* inside) noexcept {
  int victim = no_victim;
  split_deque::entry e = list_.steal(thief, thief.next_random(), inside, &victim);
  if (e == split_deque::none) return nullptr;
  frame_allocator* a = thief.allocator();
  a->quota_new_period();  // steal() resets the quota (Fig. 5)
  promise_base* p = entry_promise(e);
  if (e & start_tag) a->quota_charge(p->start_charge);  // a frame made at a give-up, paid by its starter
  if (victim == no_victim) {
    thief.count_steal(steal_from::ownerless, victim);
  } else {
    // A continuation stolen from a worker: publish the thief's next push at once, as work stealing does
    // (count_victim_steal). Without it the thief's next tasks stay private until someone asks, and on a
    // flat finish at 16 simulated workers the other thieves found nothing for so long that sor ran 6x
    // slaw-dyn's time (docs/design/space.md § Victims among the deques present).
    thief.count_steal(steal_from::continuation, victim);
    thief.publish_next_push();
  }
  return p;
}

// A run's root: the worker's new deque goes to the right end of R (roots of later runs have lower
// priority) and a new quota period starts.
void dfdeques::begin_root(worker& w, promise_base* root) noexcept {
  list_.enter_root(w);
  w.allocator()->quota_new_period();
#ifndef NDEBUG
  order_note_root(root);
#else
  (void)root;
#endif
}

// A frame resumed by an external event: a new deque at the right end of R and a new quota period, as
// for a root; its place in the serial order is not kept (docs/design/space.md § Waits on external events).
void dfdeques::begin_resumed(worker& w, promise_base*) noexcept {
  list_.enter_resumed(w);
  w.allocator()->quota_new_period();
}

void dfdeques::add_stats(runtime_stats& s) const {
  s.quota = quota_ == quota_infinite ? 0 : quota_;
  dfd_counters dc = list_.counters();
  s.dfd_steals = dc.steals;
  s.dfd_failed_attempts = dc.failed_attempts;
  s.dfd_giveups = dc.giveups;
  s.dfd_deletions = dc.deletions;
  s.dfd_max_deques = dc.max_deques;
  s.dfd_batched = dc.batched;
  s.dfd_splits = dc.splits;
}

}  // namespace slaw::detail

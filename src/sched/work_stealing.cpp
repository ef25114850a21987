#include "sched/work_stealing.hpp"

#include <algorithm>

#include "slaw/detail/worker.hpp"
#include "sched/victim_take.hpp"
#include "slaw/policy/victims.hpp"

namespace slaw::detail {

promise_base* work_stealing::probe(worker& thief) noexcept {
  const std::size_t n = workers_.size();
  if (n <= 1) return nullptr;
  for (std::size_t vi : policy::victim_order(thief.index(), n, thief.next_random(), policy::steal_probes)) {
    steal_from from;
    if (promise_base* p = take_from_victim(*workers_[vi], preempted_first_, from, thief.index())) {
      count_victim_steal(thief, from, vi);
      return p;
    }
  }
  return nullptr;
}

// A free thief runs set-aside tasks first (they are older work), then steals. A thief waiting in place
// takes a set-aside task inside its finish, or steals and sets aside what it may not run (it cannot
// put the task back in the victim's deque); a free worker, woken for it, runs it.
promise_base* work_stealing::steal(worker& thief, const finish_node* inside) noexcept {
  std::uint64_t note = 0;
  if (!inside) {
    if (promise_base* p = set_aside_.take_first([](promise_base*) { return true; }, note)) {
      thief.took_handed_over(note);
      return p;
    }
    return probe(thief);
  }
  auto is_inside = [inside](promise_base* p) { return p->cur->is_inside(inside); };
  if (promise_base* p = set_aside_.take_first(is_inside, note)) {
    thief.took_handed_over(note);
    return p;
  }
  promise_base* p = probe(thief);
  if (p && !is_inside(p)) {
    set_aside_.put(p, thief.hand_over_steal());
    thief.on_exposed();
    return nullptr;
  }
  return p;
}

}  // namespace slaw::detail

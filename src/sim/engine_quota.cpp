// DFDeques' quota at a task's operations (src/core/memory.cpp, src/core/give_up.cpp): a user
// allocation checked against the quota, a reservation larger than K paid by floor(m/K) dummy tasks,
// and the give-ups at a spawn, a call or an allocation that hand the worker's deque to R.
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "sim/engine.hpp"
#include "sim/engine_internal.hpp"
#include "sim/scheduler.hpp"
#include "sim/workloads.hpp"
#include "slaw/policy/quota.hpp"

namespace slaw::sim {

using namespace engine_detail;

// ---------------------------------------------------------------- memory (slaw::make_buffer)

time_ps engine::op_alloc(worker& w, task_id id, std::int64_t bytes) {
  task& t = tasks_[id];
  if (w.quota.enabled()) {
    if (t.retry == big_alloc) {  // the dummies paid for it: reserved, not charged
      t.retry = 0;
      w.quota.reserve_large(bytes);
    } else {
      const policy::reservation_plan plan = policy::plan_reservation(
          static_cast<std::uint64_t>(bytes), w.quota.k(), [] { return std::numeric_limits<std::int64_t>::max(); });
      if (plan.step == policy::reservation_step::run_dummy_tasks && plan.dummy_tasks > max_dummy_tasks)
        throw std::invalid_argument(
            jobs_[t.job].src->name() + ": a task allocates " + std::to_string(bytes) + " bytes; under DFDeques with K = " +
            std::to_string(w.quota.k()) + " its reservation runs floor(m/K) = " + std::to_string(plan.dummy_tasks) +
            " dummy tasks, more than the simulator's limit of " + std::to_string(max_dummy_tasks) +
            " per allocation; give a --K of at least " + std::to_string(static_cast<std::uint64_t>(bytes) / max_dummy_tasks + 1) +
            " (or inf)");
      if (plan.step == policy::reservation_step::run_dummy_tasks) {
        t.retry = big_spawn;
        t.retry_bytes = bytes;
        const time_ps more = op_start_finish(w, id);  // fetches the spawn of the dummies next
        return more;
      }
      if (!w.quota.fits(bytes, w.live)) {  // wait for quota: give up the deque, retry after a steal
        t.retry = retry_alloc;
        t.retry_bytes = bytes;
        return give_up_here(w, id);
      }
      note_quota_used(w, w.quota.reserve(bytes, w.live));
    }
    w.quota.consume_reservation(bytes);
  }
  t.user_owner = static_cast<std::uint16_t>(w.index);
  alloc_bytes(w, bytes, policy::memory_kind::user);
  return now_ + run_task(w, id);
}

time_ps engine::op_free(worker& w, task_id id, std::int64_t bytes) {
  free_bytes(tasks_[id].user_owner, bytes, true);
  return now_ + run_task(w, id);
}

// ---------------------------------------------------------------- DFDeques give-ups (give_up.cpp)

time_ps engine::give_up(worker& w, entry below, entry top) {
  detach_bottom(w);
  if (below != no_entry) w.pre.push(below);
  w.pre.push(top);
  const time_ps took = job_of(w).sched->give_up(w);
  ++w.c.quota_giveups;
  on_exposed(w);  // wake a sleeper for the work handed over
  job_of(w).sched->check();
  return go_idle(w, took);
}

// Fork with the quota spent: both the parent and the child go on the deque (Narlikar Fig. 5).
time_ps engine::give_up_at_spawn(worker& w, task_id parent, task_id child) {
  ++w.c.spawns_wf;
  task& c = tasks_[child];
  c.kind = task_kind::queued;
  ++fins_[c.join].count;
  c.start_charge = static_cast<std::uint32_t>(w.quota.take_deferred());
  return give_up(w, make_entry(parent, parent_tag), make_entry(child, start_tag));
}

time_ps engine::give_up_at_call(worker& w, task_id callee) {
  tasks_[callee].start_charge = static_cast<std::uint32_t>(w.quota.take_deferred());
  return give_up(w, no_entry, make_entry(callee, start_tag));
}

time_ps engine::give_up_here(worker& w, task_id self) {
  (void)w.quota.take_deferred();
  return give_up(w, no_entry, make_entry(self, parent_tag));
}

}  // namespace slaw::sim

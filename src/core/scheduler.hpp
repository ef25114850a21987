// The interface between the core worker and a scheduling variant (work stealing, DFDeques; later
// places and the multi-job arbiter client). The core calls it only on slow paths: a steal attempt, the
// start of a run's root, a quota give-up, a wait in place, the parking re-check, stats. The spawn and
// return fast paths never reach it: a variant that must stop a running chain (DFDeques' quota) does so
// through the allocator's one preempt flag, which the fast path already loads.
//
// Variants live in src/sched/, one module each, and are made by make_scheduler (src/sched/scheduler.cpp):
// adding one is a new module and one row there. They see a worker through its "thief side" section
// (include/slaw/detail/worker.hpp), never through its private fields.
#pragma once

#include <memory>
#include <vector>

namespace slaw {
struct config;
struct runtime_stats;
}  // namespace slaw

namespace slaw::detail {

class worker;
class runtime_impl;
struct promise_base;
struct finish_node;

class scheduler {
 public:
  virtual ~scheduler() = default;

  // Before any worker exists: the settings the workers of this variant run with (e.g. DFDeques is
  // work-first by definition).
  virtual void configure_workers(config&) const {}
  // A worker was built (its thread has not started): e.g. switch its allocator's quota on.
  virtual void attach(worker&) {}

  // Routine 1, step 2: one steal attempt by `thief`, whose own deques are empty. Returns a task ready
  // to resume, already counted in its finish (a detached work-first child counted, docs/design/finish.md),
  // or null on a failed attempt. With `inside`, the thief waits in place for that finish and may run
  // only tasks inside it (docs/design/finish.md, "Waiting in place"): the variant hands any other task it
  // takes to other workers and returns null.
  virtual promise_base* steal(worker& thief, const finish_node* inside) noexcept = 0;
  // A run's root task is about to start on `w`.
  virtual void begin_root(worker&, promise_base* /*root*/) noexcept {}
  // `w` takes a frame that an external event resumed (include/slaw/external.hpp) to run it.
  virtual void begin_resumed(worker&, promise_base* /*frame*/) noexcept {}
  // The quota is spent (the allocator's preempt flag): `w` pushed its stopped chain on its preempted
  // deque, and the variant takes the deque over. Only variants that set the flag get this call.
  virtual void give_up(worker& w) noexcept;
  // Whether a worker that the job's allotment no longer covers (docs/design/multijob.md) stops its chain by a
  // give-up (give_up above: the variant takes its deque over) rather than by the core's yield, which
  // keeps the deque with the worker, parks it, and lets others mug it. DFDeques: its deques live in R.
  virtual bool yields_by_give_up() const noexcept { return false; }
  // `w` waits in place for `f` (docs/design/finish.md); the returned anchor goes back to end_wait.
  virtual void* begin_wait(worker&, const finish_node* /*f*/) noexcept { return nullptr; }
  virtual void end_wait(worker&, void* /*anchor*/) noexcept {}

  // A task (new, counted in its finish: `started` false) or a frame that already ran (a waiting frame, a
  // continuation: `started` true) whose place does not contain the worker `from` that has it: put it
  // where the workers of its place find it (docs/design/places.md). Only variants with places get this call (a
  // flat deployment has one place, which contains every worker).
  virtual void post(worker& from, promise_base* p, bool started) noexcept;

  // Parking re-check (docs/design/parking.md): whether the variant holds work outside the workers' deques.
  // seq_cst reads, so that the eventcount's argument covers it.
  virtual bool holds_work() const noexcept = 0;
  // The whole re-check for a worker about to sleep: work `w` could take, in the variant's own
  // structures or in the workers' deques. By default everything visible counts.
  virtual bool work_visible_to(const worker& w, const std::vector<std::unique_ptr<worker>>& workers) const noexcept;
  // Whether every sleeper, not only the last searcher, sleeps with a timeout while a worker is busy:
  // where a worker may not run every task (places), the last searcher cannot stand in for the others.
  virtual bool every_sleeper_polls() const noexcept { return false; }
  // The variant's own figures into `s`, and their reset between runs.
  virtual void add_stats(runtime_stats&) const {}
  virtual void reset_stats() {}
};

// One row per variant, chosen by config::scheduler.
std::unique_ptr<scheduler> make_scheduler(const config& cfg, runtime_impl& rt);

}  // namespace slaw::detail

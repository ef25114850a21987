// The simulation engine: P simulated workers running a DAG source's tasks with the runtime's own
// mechanisms (docs/simulation.md, "Engine").
//
// It is event-driven: each worker has at most one pending event (the end of its current operation, a
// probe of a victim, a wake-up), kept in a heap ordered by (time, worker). An event applies the
// operation's effects at its time and schedules the worker's next event after the operation's cost.
// A worker whose next event still comes first goes on without touching the heap, so one worker runs
// at full speed. Everything the runtime decides is decided here by the same policy functions
// (include/slaw/policy/): ADP per spawn, Routine 1's own-task choice, the victim order, the split of
// a deque, the idle routine's sleeps and wake-ups, DFDeques' list R and quota.
//
// What the simulator models itself (the runtime's mechanisms, not decisions): the split deques
// (sim_deque.hpp), the finish protocol of docs/finish.md (counted units, detaching, W1), the worker's
// work-first depth (head - base), give-ups and reservations under DFDeques (src/core/give_up.cpp,
// src/core/memory.cpp).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sim/analysis.hpp"
#include "sim/costs.hpp"
#include "sim/dag_source.hpp"
#include "sim/event_queue.hpp"
#include "sim/sim_worker.hpp"
#include "sim/task_pool.hpp"
#include "slaw/policy/adp.hpp"
#include "slaw/policy/idle.hpp"

namespace slaw::sim {

enum class scheduler_kind : std::uint8_t { ws, dfdeques };

struct run_config {
  std::uint32_t workers = 1;  // 1 .. 1024
  policy::mode mode = policy::mode::dyn;
  policy::adp_params adp;
  scheduler_kind scheduler = scheduler_kind::ws;
  std::uint64_t quota = 0;  // DFDeques' K in bytes; 0: infinite
  std::uint64_t seed = 0;   // 0: the runtime's own per-worker seeds
  bool preempted_first = true;  // config::steal_preempted_first
  policy::idle_params idle;
  bool checks = false;  // verify the invariants while running (slower; tests)
};

inline constexpr std::uint32_t max_workers = 1024;

struct run_result {
  time_ps makespan = 0;
  worker_counters total;  // sums over the workers; max_* fields are maxima
  dag_analysis dag;
  std::uint64_t tasks = 0;  // the workload's tasks created, the root included (not DFDeques' dummy tasks)
  std::int64_t peak_bytes = 0, peak_frame_bytes = 0, peak_user_bytes = 0;  // process-wide live bytes
  std::uint64_t peak_live_tasks = 0;
  // DFDeques (docs/counters.md's dfd.*)
  std::uint64_t dfd_steals = 0, dfd_failed_attempts = 0, dfd_giveups = 0, dfd_deletions = 0, dfd_max_deques = 0;
  std::uint64_t schedule_hash = 0;  // of every operation's (time, worker, kind, task): same seed, same hash
  std::uint64_t events = 0;
  double wall_seconds = 0;            // the simulation's own run time
  std::vector<std::string> violations;  // checks: invariants that failed (empty when all held)
  std::uint64_t order_checks = 0;       // checks: Lemma 3.1 comparisons made (DFDeques)
};

// Runs `source` once on `cfg.workers` simulated workers. Throws std::invalid_argument for a bad
// configuration and std::logic_error if the simulation stalls (a simulator bug).
run_result simulate(dag_source& source, const costs& c, const run_config& cfg);

class checker;
class sim_scheduler;

class engine {
 public:
  engine(dag_source& source, const costs& c, const run_config& cfg);
  ~engine();
  run_result run();

  // ---- what the schedulers (sched_ws.cpp, sched_dfd.cpp) use: the thief side and the records
  worker& at(std::uint32_t i) noexcept { return w_[i]; }
  std::uint32_t workers() const noexcept { return cfg_.workers; }
  const run_config& config() const noexcept { return cfg_; }
  const cost_ps& cost() const noexcept { return c_; }
  task& t(task_id id) noexcept { return tasks_[id]; }
  finish& f(finish_id id) noexcept { return fins_[id]; }
  time_ps now() const noexcept { return now_; }
  // The oldest preempted entry of `victim`, detached (its child counted in its finish); none if empty.
  task_id yield_continuation(worker& victim);
  // The oldest fresh task of `victim`; none if none (a request to split is left).
  task_id yield_fresh(worker& victim);
  // The task an entry taken from a deque resumes (an untagged one is detached: docs/finish.md).
  task_id detach_entry(entry e);
  // A successful steal costs its victim (a running worker) this much of its next event.
  void penalize(worker& victim);
  void note_quota_used(worker& w, std::int64_t used);
  void trace(std::uint32_t w, std::uint32_t what, std::uint32_t id) noexcept;
  checker* checks() noexcept { return checks_.get(); }

 private:
  friend class checker;
  time_ps on_event(worker& w);
  // Running: applies w.pending; returns the time to w's next event.
  time_ps apply(worker& w);
  time_ps op_start_finish(worker& w, task_id id);
  time_ps op_end_finish(worker& w, task_id id);
  time_ps op_spawn(worker& w, task_id id, const step& s);
  time_ps op_call(worker& w, task_id id, const step& s);
  time_ps op_ret(worker& w, task_id id);
  time_ps op_alloc(worker& w, task_id id, std::int64_t bytes);
  time_ps op_free(worker& w, task_id id, std::int64_t bytes);
  time_ps complete_spawned(worker& w, task_id id);
  time_ps complete_queued(worker& w, task_id id);
  // Ends a counted unit of finish g; if it was the last, resumes the waiter on w (or ends the job).
  // `cost` is what w has spent already; returns the time to w's next event.
  time_ps end_unit(worker& w, finish_id g, time_ps cost);
  // The frame `id` leaves finish g (its end_finish completed): analysis, checks, release.
  void exit_finish(task_id id, finish_id g);
  void join_edge(const task& done);
  void detach_bottom(worker& w);
  // Makes `id` w's current task and fetches its next operation; returns that operation's work.
  time_ps run_task(worker& w, task_id id);
  step fetch(task_id id);
  time_ps go_idle(worker& w, time_ps cost);
  void begin_strand(worker& w);
  task_id new_task(worker& w, task_id parent, const step& s, task_kind kind);
  void release_task(task_id id);
  void advance(task& t, time_ps d) noexcept;
  // Memory.
  void alloc_bytes(worker& w, std::int64_t bytes, policy::memory_kind kind);
  void free_bytes(std::uint32_t owner, std::int64_t bytes, bool user);
  // DFDeques give-ups (src/core/give_up.cpp).
  time_ps give_up(worker& w, entry below, entry top);
  time_ps give_up_at_spawn(worker& w, task_id parent, task_id child);
  time_ps give_up_at_call(worker& w, task_id callee);
  time_ps give_up_here(worker& w, task_id self);
  // The idle routine (worker::find_work, parking).
  time_ps find_work(worker& w);
  time_ps search(worker& w);
  time_ps try_sleep(worker& w);
  time_ps wake_up(worker& w);
  task_id take_own(worker& w);
  void start_searching(worker& w);
  void found_work(worker& w);
  void on_exposed(worker& waker);
  // Wakes the first sleeper; the waker (none: the thread calling run) pays the system call.
  void wake_one(worker* waker);
  // A cost of the idle routine with the model's jitter (the worker's own seeded stream).
  time_ps vary(worker& w, time_ps c);
  bool work_visible() const;
  void job_done(std::uint32_t job, time_ps at);

  dag_source& src_;
  run_config cfg_;
  cost_ps c_;
  std::unique_ptr<worker[]> w_;
  std::deque<task> tasks_;       // stable references (records only grow, then are reused)
  std::vector<task_id> free_tasks_;
  std::deque<finish> fins_;
  std::vector<finish_id> free_fins_;
  std::uint64_t live_tasks_ = 0, peak_live_tasks_ = 0, tasks_made_ = 0, dummies_made_ = 0;  // dummies: DFDeques'
  event_queue q_;
  std::unique_ptr<sim_scheduler> sched_;
  std::unique_ptr<checker> checks_;
  time_ps now_ = 0;
  bool done_ = false;
  // Idle workers (src/core/parking.hpp's counts) and the sleepers, first asleep first woken.
  std::uint32_t searching_ = 0, sleepers_ = 0, idle_ = 0;
  std::deque<std::pair<std::uint32_t, std::uint64_t>> sleep_queue_;  // (worker, ticket)
  std::vector<std::uint64_t> ticket_;  // a worker's current ticket; stale queue entries are skipped
  std::deque<task_id> injected_;       // root tasks not taken yet (runtime::run)
  struct job {
    finish_id root_finish = none;
    time_ps end = 0;
    bool done = false;
  };
  std::vector<job> jobs_;
  std::uint32_t jobs_left_ = 0;
  // Memory, process-wide.
  std::int64_t frames_live_ = 0, user_live_ = 0, peak_frames_ = 0, peak_user_ = 0, peak_all_ = 0;
  dag_analysis dag_;
  std::uint64_t hash_ = 0, events_ = 0;
};

}  // namespace slaw::sim

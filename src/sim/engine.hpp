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
// (sim_deque.hpp), the finish protocol of docs/design/finish.md (counted units, detaching, W1), the worker's
// work-first depth (head - base), give-ups and reservations under DFDeques (src/core/give_up.cpp,
// src/core/memory.cpp).
//
// Several jobs (simulate_jobs; sharing.hpp, engine_sharing.cpp): each job is one runtime with its own
// workers, idle routine and scheduler, in the same event queue; an arbiter event at every quantum
// boundary sets each job's allotment, and the job parks or wakes workers to match it.
//
// The class's members are defined by mechanism: engine.cpp (construction, the event loop, records,
// memory, totals), engine_tasks.cpp (a running task's operations, the finish protocol),
// engine_quota.cpp (DFDeques' quota: reservations, give-ups), engine_idle.cpp (the idle routine),
// engine_sharing.cpp (several jobs).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/analysis.hpp"
#include "sim/costs.hpp"
#include "sim/dag_source.hpp"
#include "sim/event_queue.hpp"
#include "sim/sharing.hpp"
#include "sim/sim_worker.hpp"
#include "sim/task_pool.hpp"
#include "slaw/policy/adp.hpp"
#include "slaw/policy/idle.hpp"
#include "slaw/policy/split.hpp"

namespace slaw::sim {

enum class scheduler_kind : std::uint8_t { ws, dfdeques };

// Changes to the runtime that the simulator can try before anyone makes them (--what-if; docs/
// simulation.md, "What-ifs"). The defaults: the runtime as it is.
struct what_if {
  bool dfd_no_publish = false;      // a DFDeques thief does not publish its next push after a steal
  bool dfd_pick_positions = false;  // DFDeques draws its victim among p positions (Fig. 5), not min(p, |R|) deques
  bool dfd_free_r = false;        // R without its lock: steals never serialise or fail on it
  // The expose window (policy::expose_window): after answering a request of at least M different
  // thieves, the next N pushes publish at once. N = 0: no window (the runtime before it).
  std::uint32_t expose_after_request = policy::expose_window;
  std::uint32_t expose_min_thieves = policy::expose_min_thieves;
  friend bool operator==(const what_if&, const what_if&) = default;
};

struct run_config {
  std::uint32_t workers = 1;  // 1 .. 1024 (several jobs: each job's)
  policy::mode mode = policy::mode::dyn;
  policy::adp_params adp;
  scheduler_kind scheduler = scheduler_kind::ws;
  std::uint64_t quota = 0;  // DFDeques' K in bytes, 1 .. max_quota; 0: infinite
  std::uint64_t seed = 0;   // 0: the runtime's own per-worker seeds
  bool preempted_first = true;  // config::steal_preempted_first
  policy::idle_params idle;
  what_if what;
  bool checks = false;  // verify the invariants while running (slower; tests)
  // Fast-forward the timed polls of an idle worker that cannot find work until another worker's next
  // event (engine::skip_quiet_polls); off only to test that it is exact.
  bool fast_forward_polls = true;
};

inline constexpr std::uint32_t max_workers = 1024;
inline constexpr std::uint64_t max_quota = std::uint64_t{1} << 62;  // K is a signed 64-bit byte count in the quota
// DFDeques' reservation of an allocation m > K runs floor(m/K) dummy tasks (src/core/memory.cpp); the
// simulator runs at most this many per allocation (a few seconds' worth) and refuses more
// (std::invalid_argument naming the sizes): 2^61 bytes at K = 50000 would be 2^45.4 of them.
inline constexpr std::uint64_t max_dummy_tasks = std::uint64_t{1} << 24;

struct run_result {
  time_ps makespan = 0;
  worker_counters total;  // sums over the workers; max_* fields are maxima
  dag_analysis dag;
  std::uint64_t tasks = 0;  // the workload's tasks created, the root included (not DFDeques' dummy tasks)
  std::int64_t peak_bytes = 0, peak_frame_bytes = 0, peak_user_bytes = 0;  // process-wide live bytes
  std::uint64_t peak_live_tasks = 0;
  // DFDeques (docs/guide/counters.md's dfd.*)
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

// A multi-job run: `run` has the totals over all jobs (counters, hash, events, violations; makespan is
// the last completion less the first arrival), `jobs` each job, `quanta` every quantum of every job.
struct sharing_result {
  run_result run;
  std::vector<job_result> jobs;
  std::vector<quantum_record> quanta;
  time_ps first_arrival = 0;
  time_ps busy = 0;      // core time spent running tasks and runtime operations on them (all jobs)
  time_ps allotted = 0;  // core time handed out: the integral of min(P, sum of the allotments)
  std::uint64_t allotment_rounds = 0;  // quantum boundaries with a job present
};

// Runs `jobs` (each with its own source and arrival) on `s.cores` simulated cores, each job with
// cfg.workers workers, under two-level scheduling (sharing.hpp). Throws as simulate does.
sharing_result simulate_jobs(std::span<const job_input> jobs, const costs& c, const run_config& cfg,
                             const sharing_config& s);

class checker;
class sim_scheduler;
class core_sharing;

class engine {
 public:
  engine(dag_source& source, const costs& c, const run_config& cfg);
  engine(std::span<const job_input> jobs, const costs& c, const run_config& cfg, const sharing_config& s);
  ~engine();
  run_result run();
  sharing_result run_jobs();

  // ---- what the schedulers (sched_ws.cpp, sched_dfd.cpp) use: the thief side and the records
  worker& at(std::uint32_t i) noexcept { return w_[i]; }
  std::uint32_t workers() const noexcept { return cfg_.workers; }  // per job
  // The workers a thief of `job` may probe, as global indices; a worker's `slot` is its position here.
  // One job: all of them; several: the job's active workers.
  const std::vector<std::uint32_t>& victims(std::uint32_t job) const noexcept { return jobs_[job].victims; }
  const run_config& config() const noexcept { return cfg_; }
  const cost_ps& cost() const noexcept { return c_; }
  task& t(task_id id) noexcept { return tasks_[id]; }
  finish& f(finish_id id) noexcept { return fins_[id]; }
  time_ps now() const noexcept { return now_; }
  // The oldest preempted entry of `victim`, detached (its child counted in its finish); none if empty.
  task_id yield_continuation(worker& victim, std::uint32_t thief);
  // The oldest fresh task of `victim`; none if none (a request to split is left).
  task_id yield_fresh(worker& victim, std::uint32_t thief);
  // The task an entry taken from a deque resumes (an untagged one is detached: docs/design/finish.md).
  task_id detach_entry(entry e);
  // A successful steal costs its victim (a running worker) this much of its next event.
  void penalize(worker& victim);
  // `w` touches contended line `l` `after` the current time: the delay beyond that until it is done
  // (contention.hpp; nothing when the model's line transfer is 0).
  time_ps touch(contended_line& l, const worker& w, time_ps after = 0, time_ps hold = 0) noexcept {
    return l.touch(now_ + after, w.index, c_.line, hold);
  }
  void note_quota_used(worker& w, std::int64_t used);
  void trace(std::uint32_t w, std::uint32_t what, std::uint32_t id) noexcept;
  checker* checks() noexcept { return checks_.get(); }
  // Several jobs: a steal attempt on a victim that was not working (purely unsuccessful, a self-pick
  // included) or working, with the victim's queued entries (the digest's §IV-B counters).
  void count_attempt(const worker& thief, bool purely_unsuccessful, std::uint64_t victim_queued) noexcept;
  // The thief's own slot came up (sharing_config::self_picks says whether it counts).
  void count_self_pick(const worker& thief) noexcept;
  bool sharing() const noexcept { return sharing_; }

 private:
  friend class checker;
  struct job;
  void setup_workers();
  void start_job(std::uint32_t j);
  // The main loop until every job is done.
  void loop();
  run_result totals();
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
  // `before`: what w spent on the task's return already (a shared pop that found it stolen).
  time_ps complete_queued(worker& w, task_id id, time_ps before = 0);
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
  // The memory-bound share of a strand slowed down by the workers running now (costs::mem_share).
  time_ps bandwidth(time_ps work) const;
  time_ps go_idle(worker& w, time_ps cost);
  void begin_strand(worker& w);
  task_id new_task(worker& w, task_id parent, const step& s, task_kind kind);
  task_id take_task_record();
  finish_id take_finish_record();
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
  time_ps skip_quiet_polls(worker& w, job& J);
  time_ps wake_up(worker& w);
  task_id take_own(worker& w);
  void start_searching(worker& w);
  void found_work(worker& w);
  void on_exposed(worker& waker);
  // Wakes the first sleeper of J; the waker (none: the thread calling run) pays the system call.
  void wake_one(job& J, worker* waker);
  // A cost of the idle routine with the model's jitter (the worker's own seeded stream).
  time_ps vary(worker& w, time_ps c);
  bool work_visible(const job& J) const;
  void job_done(std::uint32_t job, time_ps at);
  job& job_of(const worker& w) noexcept { return jobs_[w.job]; }

  // ---- several jobs (engine_sharing.cpp)
  void on_machine_event(std::uint32_t which);
  void schedule_machine();
  void arrive(std::uint32_t j);
  void boundary();
  policy::quantum_sample sample(job& J) const;
  void set_allotment(std::uint32_t j, std::uint32_t a);
  void activate(worker& w);
  void deactivate(worker& w);
  void rebuild_victims(job& J);
  // w leaves its job's runtime (no core): its deques stay muggable (ws) or go to R (DFDeques).
  void park(worker& w);
  // An event of a draining worker: it parks, its running task captured at this safe point.
  time_ps drain(worker& w);
  // w's running task, `left` of its strand still to run, becomes resumable by any worker of its job.
  void capture(worker& w, time_ps left);
  time_ps unpark(worker& w);
  // Takes a parked worker's deques whole; false if none is muggable.
  bool mug(worker& w);
  // J is done: its workers leave and its cores are free.
  void retire(job& J);
  void account_allotted();
  void check_allotments();
  std::uint32_t present_jobs() const;
  time_ps busy_so_far(const job& J) const;
  // Time-sharing under off (core_sharing.hpp).
  bool need_core(std::uint32_t wi);
  void give_core(worker& w);
  void schedule_os();
  void on_slice_end();

  run_config cfg_;
  cost_ps c_;
  std::unique_ptr<worker[]> w_;
  std::uint32_t nworkers_ = 0;  // all jobs' workers
  std::deque<task> tasks_;       // stable references (records only grow, then are reused)
  std::vector<task_id> free_tasks_;
  std::deque<finish> fins_;
  std::vector<finish_id> free_fins_;
  std::uint64_t live_tasks_ = 0, peak_live_tasks_ = 0, tasks_made_ = 0, dummies_made_ = 0;  // dummies: DFDeques'
  event_queue q_;
  std::unique_ptr<checker> checks_;
  time_ps now_ = 0;
  bool done_ = false;
  std::vector<std::uint64_t> ticket_;  // a worker's current ticket; stale sleep-queue entries are skipped
  // Per quantum, the digest's §IV-B counters of one job's workers.
  struct quantum_counters {
    std::uint64_t attempts = 0, purely = 0, length = 0, mugs = 0;
  };
  // A job: one runtime (its workers [base, base + count), its scheduler and idle routine) and its root.
  struct job {
    dag_source* src = nullptr;
    finish_id root_finish = none;
    time_ps arrival = 0, end = 0;
    bool arrived = false, done = false;
    std::uint32_t base = 0, count = 0;
    std::unique_ptr<sim_scheduler> sched;
    // Idle workers (src/core/parking.hpp's counts) and the sleepers, first asleep first woken.
    std::uint32_t searching = 0, sleepers = 0, idle = 0;
    std::uint32_t awake = 0;  // workers in the runtime (not parked): the idle routine's `workers`
    std::deque<std::pair<std::uint32_t, std::uint64_t>> sleep_queue;  // (worker, ticket)
    std::deque<task_id> injected;  // root tasks not taken yet (runtime::run)
    std::vector<std::uint32_t> victims;  // global indices; a worker's slot is its position
    // Its analysis and tallies.
    dag_analysis dag;
    std::uint64_t tasks = 0;
    // Two-level scheduling.
    std::uint32_t allotment = 0, holders = 0;  // cores allotted; workers holding one (active)
    std::uint32_t allotment_q = 0;             // a(q): the allotment in force during this quantum
    std::deque<std::uint32_t> muggable;        // parked workers whose deques may hold work (FIFO)
    policy::desire_state desire;
    std::uint64_t quantum = 1;
    time_ps quantum_start = 0, busy_at_start = 0;
    quantum_counters qc;
  };
  std::vector<job> jobs_;
  std::uint32_t jobs_left_ = 0;
  // Several jobs.
  bool sharing_ = false;
  sharing_config share_;
  std::vector<std::uint32_t> arrival_order_;  // jobs by arrival time, then index
  std::size_t next_arrival_ = 0;
  time_ps next_boundary_ = never;
  std::unique_ptr<core_sharing> cores_;  // off only
  std::unordered_map<task_id, step> saved_;  // pending steps of captured tasks
  std::vector<quantum_record> quanta_;
  time_ps allotted_ = 0, allotted_since_ = 0;
  std::uint32_t allotted_now_ = 0;
  std::uint64_t allotment_rounds_ = 0;
  policy::desire_params dparams_;  // share_.desire capped at the job's workers
  double steal_ns_ = 0;            // one fruitless attempt's share of a round, for S_max
  // Memory, process-wide.
  std::int64_t frames_live_ = 0, user_live_ = 0, peak_frames_ = 0, peak_user_ = 0, peak_all_ = 0;
  std::uint64_t hash_ = 0, events_ = 0;
};

}  // namespace slaw::sim

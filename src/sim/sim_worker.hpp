// One simulated worker: the runtime's worker (include/slaw/detail/worker.hpp) as plain data — two
// deques, the ADP state, the DFDeques quota, the idle routine's state — and its counters, named as in
// include/slaw/counters.def where the runtime has the same one.
#pragma once

#include <cstdint>
#include <optional>

#include "sim/contention.hpp"
#include "sim/dag_source.hpp"
#include "sim/sim_deque.hpp"
#include "slaw/policy/adp.hpp"
#include "slaw/policy/quota.hpp"
#include "slaw/policy/victims.hpp"

namespace slaw::sim {

struct worker_counters {
  std::uint64_t spawns_wf = 0, spawns_hf = 0, calls = 0, finishes = 0;
  std::uint64_t steals_preempted = 0, steals_fresh = 0;  // this worker stole (DFDeques: every steal is "preempted")
  std::uint64_t stolen_preempted = 0, stolen_fresh = 0;  // stolen from this worker
  std::uint64_t failed_steals = 0;                        // fruitless rounds (DFDeques: attempts)
  std::uint64_t probes = 0;                               // victims looked at
  std::uint64_t context_switches = 0, suspensions = 0, arrivals = 0;
  std::uint64_t local_takes = 0, tasks_run = 0;
  std::uint64_t policy_switches = 0;
  std::uint64_t max_wf_depth = 0, max_fresh = 0;
  std::uint64_t parks = 0, wakes = 0, spins = 0;
  std::uint64_t quota_giveups = 0, dummy_tasks = 0;
  std::int64_t quota_max_used = 0;
  std::uint64_t quota_overrun_bytes = 0;
  time_ps busy = 0;  // time spent running tasks and in the runtime's operations on them
  // Several jobs (engine_sharing.cpp): deques taken whole from parked workers, and tasks captured when
  // the worker parked at a safe point (drains) or was preempted mid-strand a quantum later.
  std::uint64_t mugs = 0, drains = 0, preemptions = 0;
  time_ps overrun = 0;  // time it ran after losing its core, until it parked or got one back

  void add(const worker_counters& o);
  friend bool operator==(const worker_counters&, const worker_counters&) = default;
};

enum class wstate : std::uint8_t {
  running,    // runs task `cur`; its next operation is `pending`
  find_work,  // about to run the idle routine (take its own work, else search)
  searching,  // in steal rounds
  sleeping,   // parked, in the sleepers' queue (maybe with a timed wake-up)
  parked,     // several jobs: outside its job's allotment (no core); an event, if any, wakes it
};

struct worker {
  std::uint32_t index = 0;
  sim_deque pre, fresh;   // preempted continuations, fresh (help-first) tasks
  // The deques' shared words (indices, split request) as one cache line: thieves' probes and steals
  // take it, the owner's pushes and shared pops take it back (contention.hpp).
  contended_line dq;
  std::uint32_t base = 0; // pre.head() when the current strand began: WF depth = head - base
  policy::adp_state adp;
  policy::spawn_policy last_decision = policy::spawn_policy::hf;
  std::uint64_t stolen_pre = 0, stolen_fresh = 0;  // thieves' counts (ADP reads their sum)
  std::uint64_t rng = 0;
  std::uint64_t jitter_state = 0;  // the cost jitter's own stream (the victim order keeps the runtime's)

  wstate state = wstate::sleeping;
  task_id cur = none;
  step pending;
  time_ps penalty = 0;  // victims' costs of steals, paid at the next event

  // The idle routine.
  std::optional<policy::victim_order> round;
  policy::victim_order::iterator probe_at;
  std::uint32_t rounds = 0;
  std::int64_t backoff_ns = 0;
  bool timed_sleep = false;
  // Its last timed sleep at the backoff's cap (engine::skip_quiet_polls): when it began (-1: the last
  // sleep was not one), and the counters then.
  struct poll_mark {
    time_ps at = -1;
    std::uint64_t events = 0, own_events = 0;  // the engine's and this worker's events
    worker_counters c;
    std::uint64_t dfd_steals = 0, dfd_failed = 0, dfd_giveups = 0;
    std::uint64_t draws = 0, jitter_state = 0;  // its random streams' positions
  } poll;
  std::uint64_t events = 0;  // events this worker ran

  // Memory: live bytes of this worker's allocator (frames + user), the DFDeques quota over them.
  std::int64_t live = 0;
  policy::quota quota;

  worker_counters c;

  // Several jobs (engine_sharing.cpp). A single run keeps the defaults: one job, every worker active.
  std::uint32_t job = 0;        // the job (runtime) it belongs to
  std::uint32_t slot = 0;       // its position among its job's victims (the job's active workers)
  bool active = true;           // holds one of its job's allotted cores
  bool draining = false;        // lost its core: parks at its next event (a safe point)
  time_ps drain_since = 0;      // when it was told (preempted at the next quantum boundary at the latest)

  std::uint64_t draws = 0;  // next_random() calls, for fast-forwarding the stream (engine::skip_quiet_polls)
  std::uint64_t next_random() noexcept {  // the runtime's xorshift (worker::next_random)
    ++draws;
    rng = xorshift_step(rng);
    return rng;
  }
  static constexpr std::uint64_t xorshift_step(std::uint64_t x) noexcept {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  }
};

}  // namespace slaw::sim

// The simulated schedulers' interface: the thief side of a steal round, and what a variant does to
// its own structures — the runtime's src/core/scheduler.hpp, in simulated time.
//   ws        SLAW's adaptive work stealing (src/sched/work_stealing.cpp): a round probes up to
//             policy::steal_probes victims from a random start (policy::victim_order), one victim per
//             event, each victim's preempted deque first (configurable), the oldest entry only
//   dfdeques  DFDeques(K) (src/sched/dfdeques/): one attempt per round at the i-th deque of the list R
//             (policy::deque_order), the quota (policy::quota) reset at every steal
// Each job of a multi-job run has its own instance (a runtime per process). Under two-level scheduling
// a thief also reports every attempt (engine::count_attempt) for its job's desire.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/task_pool.hpp"

namespace slaw::sim {

class engine;
struct worker;
struct run_config;

struct probe_result {
  task_id task = none;   // the task to run (stolen), or none
  bool round_over = false;
  std::int64_t wait = 0;  // the probe's contended lines: waits and transfers (contention.hpp)
};

class sim_scheduler {
 public:
  virtual ~sim_scheduler() = default;
  // Settings the variant imposes (DFDeques: work-first, no stack bound).
  virtual void configure(run_config&) const {}
  // Starts a steal round; false if there is nobody to steal from (one worker under ws).
  virtual bool begin_round(worker& thief) = 0;
  // One probe (ws: one victim; dfdeques: one attempt) at the engine's current time.
  virtual probe_result probe(worker& thief) = 0;
  // A root task starts on w.
  virtual void begin_root(worker&) {}
  // w gives up its deque (the quota is spent): its entries go to the variant. Returns the time it
  // took (waiting for a lock included).
  virtual std::int64_t give_up(worker&) { return 0; }
  // Work only the variant can see (for the sleepers' re-check).
  virtual bool holds_work() const { return false; }
  // After every change of the variant's structures in a checked run: Lemma 3.1 and the like.
  virtual void check() {}
  struct tallies {
    std::uint64_t steals = 0, failed_attempts = 0, giveups = 0, deletions = 0, max_deques = 0;
  };
  virtual tallies tally() const { return {}; }
  // Counts `n` more failed attempts: polls the engine fast-forwarded (engine::skip_quiet_polls).
  virtual void add_failed_attempts(std::uint64_t) {}
  // Several jobs: w leaves its runtime (its job lost a core). ws: its deques stay with it, muggable;
  // DFDeques: it gives its deque up to R in place, so that R's priority order still holds.
  virtual void park(worker&) {}
  // Work held outside the workers' deques (DFDeques' ownerless deques), for e and Q' of the desire.
  struct spare_work {
    std::uint32_t deques = 0;
    std::uint64_t entries = 0;
  };
  virtual spare_work spare() const { return {}; }
};

// The scheduler of job `job` (workers job * W .. job * W + W - 1).
std::unique_ptr<sim_scheduler> make_ws(engine& e, std::uint32_t job);
std::unique_ptr<sim_scheduler> make_dfdeques(engine& e, std::uint32_t job, std::uint64_t quota);

}  // namespace slaw::sim

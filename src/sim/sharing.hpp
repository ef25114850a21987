// Several jobs on P simulated cores under two-level scheduling (docs/simulation.md, "Several jobs";
// docs/design/arbiter.md; the A-Deque digest §1.2, §4, §5.2): what a multi-job run is given and what it
// records. The engine's side is engine_sharing.cpp.
//
// Time is cut into quanta of length L on one global clock (the arbiter's). At each boundary every
// present job turns what its workers counted into a desire (policy::next_desire: A-Deque or A-Steal,
// desire.hpp), and the arbiter divides the P cores (policy::allot: deq, equi or off, allotment.hpp).
// Each job is one slaw runtime with its own W workers (ACilk: as many as cores), its own deques, idle
// routine and scheduler; it runs exactly its allotment. Under off every job runs all W workers and the
// jobs time-share the cores (core_sharing.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/analysis.hpp"
#include "sim/event_queue.hpp"
#include "sim/sim_worker.hpp"
#include "slaw/policy/allotment.hpp"
#include "slaw/policy/desire.hpp"

namespace slaw::sim {

class dag_source;

struct sharing_config {
  std::uint32_t cores = 8;  // P
  policy::arbiter arbiter = policy::arbiter::deq;
  policy::desire_rule rule = policy::desire_rule::adeque;  // under equi and off: computed, not used
  policy::desire_params desire;  // β, ρ, δ; max_desire is capped at the job's workers (I6)
  time_ps quantum = 10'000'000'000;   // L = 10 ms, the paper's
  time_ps timeslice = 3'000'000'000;  // off: a core's time slice (CFS's minimum granularity on >= 8 CPUs)
  // A thief's own slot in its probe window counts as a purely unsuccessful attempt (desire.hpp, the
  // digest's fix of the estimator's bias); false: only the other workers are victims (Cilk-5's draw,
  // which the digest calls biased), for comparison.
  bool self_picks = true;
};

struct job_input {
  dag_source* source = nullptr;  // one per job: sources keep per-run state
  time_ps arrival = 0;
};

// One quantum of one job: its counters (fed to the desire rule exactly as the digest's §IV-B says) and
// the desire they gave.
struct quantum_record {
  std::uint32_t job = 0;
  std::uint64_t quantum = 0;  // the job's own quantum number q (1: its first, from its arrival)
  time_ps start = 0, end = 0;
  double desire = 0;          // d(q), the desire in force during the quantum
  double next_desire = 0;     // d(q+1), from the sample
  std::uint32_t next_allotment = 0;  // a(q+1), the arbiter's answer
  double busy_measured = 0;   // the time-average of the job's working workers: Eq. (1)'s first term, exact
  policy::quantum_sample sample;
  policy::adeque_terms terms;  // A-Deque's estimate from the sample (under asteal too, for comparison)
};

struct job_result {
  time_ps arrival = 0, end = 0;
  dag_analysis dag;
  std::uint64_t tasks = 0;
  worker_counters total;  // over the job's workers
  time_ps response() const { return end - arrival; }
};

}  // namespace slaw::sim

// The simulator's cost model: what each runtime operation costs the worker that does it, in
// nanoseconds (docs/simulation.md, "Costs", says where each default comes from).
//
// A workload's own computation is given by the workload (its strands); these are the scheduler's
// costs around it. Named models:
//   measured   this machine's figures (2-core x86-64 VM, clang-19 Release; bench/results/): the default
//   burdened   measured, but every successful steal costs Cilkscale's burden (15,000 cycles), the
//              convention behind Cilkscale's burdened span
//   slaw-java  measured, but help-first spawns, context switches and non-trivial ends of finish cost
//              what they cost in SLAW's Java runtime relative to a work-first spawn (Guo's thesis
//              Table 5.4: t_ah + t_cs ≈ 1.6 t_aw; a non-trivial end of finish set so that fib's
//              help-first run is 9.70 times its work-first run on one worker, SLAW's Table III)
//   unit       every scheduler operation costs nothing, a steal attempt one unit: the synchronous
//              unit-time model of DFDeques' analysis (Narlikar §4.1), for the space experiments
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/event_queue.hpp"

namespace slaw::sim {

struct costs {
  // Spawning, calling, joining (the owner's fast and slow paths).
  double call = 24.0;      // a sequential call of a task, its frame and return included
  double spawn_wf = 13.2;  // a work-first spawn: push, run the child, pop on its return, frame included
  double spawn_hf = 13.0;  // a help-first spawn: count the child in its finish, push it on the fresh deque
  double take = 12.0;      // the idle routine takes one of its own tasks and starts it (a context switch)
  double arrive = 16.7;    // a counted unit ends (atomic decrement), resuming the waiter if it was the last
  double suspend = 8.7;    // a non-trivial end of finish: register the waiter, detach, release the body
  double finish = 0.8;     // start_finish plus a trivial end_finish
  // Stealing and idling.
  double probe = 40.0;    // a thief looks at one victim's two deques
  double steal = 150.0;   // a successful steal: the take, the finish count, the migration of the frame
  double victim = 180.0;  // what a successful steal costs its victim (its deque's cache lines move away)
  double spin = 790.0;    // the pause loop between two fruitless steal rounds (32 pause instructions)
  double park = 500.0;    // going to sleep on the futex
  double wake = 2200.0;   // from a futex wake until the sleeper searches again
  double wake_call = 150.0;  // what waking a sleeper costs the waker (the futex_wake system call)
  double jitter = 0.5;    // probe, spin and steal costs vary uniformly by this fraction (seeded)
  double dfd_lock = 60.0;  // DFDeques: R's lock is held this long by a steal attempt or a give-up
  // Contention (contention.hpp): one cache line's transfer between two cores. Paid by whoever touches
  // a line another worker touched last (a victim's deque line, a finish counter, R's lock), after
  // waiting for the accesses queued before it.
  double line = 0.0;
  // Memory bandwidth: the share of every strand that streams memory, and how many workers' worth of
  // bandwidth the machine has for it; that share runs max(1, busy / mem_workers) times slower, busy
  // being the workers running tasks when the strand starts (0: no limit).
  double mem_share = 0.0;
  double mem_workers = 0.0;
  // Cilkscale's burden (the burdened span, and the `burdened` model's steal cost).
  double burden_cycles = 15000.0;
  double ghz = 2.3;  // this machine's clock, to turn cycles into time

  double burden_ns() const { return burden_cycles / ghz; }

  // The names accepted by set() and in a costs file, with their meaning (for --help and errors).
  static const std::vector<std::pair<std::string, std::string>>& keys();
  // Sets one key; throws std::invalid_argument naming the key and the accepted keys or values.
  void set(const std::string& key, const std::string& value);
  // A named model (measured, burdened, slaw-java, unit); throws std::invalid_argument otherwise.
  static costs named(const std::string& name);
  static const std::vector<std::string>& model_names();
  // KEY=VALUE lines, '#' comments, each key at most once and at least one; read from a regular file or
  // a pipe of at most max_file_bytes. Throws std::invalid_argument naming the file, the line and the
  // problem (a path that does not exist: "neither a cost model nor a readable file").
  static constexpr std::size_t max_file_bytes = std::size_t{1} << 20;
  void load_file(const std::string& path);
  // The model as KEY=VALUE lines (a file load_file reads back).
  std::string describe() const;
};

// The costs in picoseconds, as the engine uses them.
struct cost_ps {
  time_ps call, spawn_wf, spawn_hf, take, arrive, suspend, finish;
  time_ps probe, steal, victim, spin, park, wake, wake_call, dfd_lock, burden, line;
  double jitter, mem_share, mem_workers;
  explicit cost_ps(const costs& c);
};

}  // namespace slaw::sim

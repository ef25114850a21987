// The jobs of a multi-job run (--jobs; docs/simulation.md, "Several jobs"): workloads with arrival
// times, or Poisson arrivals of N jobs drawn from a mix of workloads. Items are separated by ';'
// (a workload's own syntax uses ',', ':' and '='):
//   fib:30@0;fj:1024,reps=100@5ms;uts:T1@0.5s    WORKLOAD[@TIME]: TIME in ms, or with s, ms or us
//   poisson:16,load=0.5,seed=3;fib:30;matmul:256  16 jobs, each drawn uniformly from the mix, the
//                                                 first at 0, exponential gaps after it
// The generator's rate is `rate=` jobs per simulated second, or `load=` the offered load per core,
// λ·E[T1]/P (T1: a workload's one-worker work-first time, measured by simulating it once). The draws
// are SplitMix64 of the seed: the same seed, the same jobs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/costs.hpp"
#include "sim/engine.hpp"

namespace slaw::sim {

struct job_entry {
  std::string gen;  // a --gen specification
  time_ps arrival = 0;
};

struct job_list_spec {
  std::vector<job_entry> fixed;  // explicit jobs (no generator)
  bool poisson = false;
  std::uint32_t count = 0;
  double rate = 0;  // jobs per simulated second (0: from load)
  double load = 0;  // offered load per core
  std::uint64_t seed = 1;
  std::vector<std::string> mix;  // the generator's workloads
  std::string text;              // as given
};

// Parses --jobs; every workload is checked. Throws std::invalid_argument naming the problem and the
// accepted forms.
job_list_spec parse_job_list(const std::string& spec);

// The jobs for `cores` cores (a generator's load sets its rate from the cores and the mix's mean work,
// each workload simulated once on one worker, work-first, with `base`'s other settings).
// `rate`, if given, receives the generator's arrival rate in jobs per second (0 for a fixed list).
std::vector<job_entry> plan_jobs(const job_list_spec& s, std::uint32_t cores, const costs& c, const run_config& base,
                                 double* rate = nullptr);

// A time with an optional unit (s, ms, us; ms if none) in picoseconds; throws std::invalid_argument.
time_ps parse_duration(const std::string& text);

}  // namespace slaw::sim

// Waiting for the other configurations' processes to go quiet before a repetition starts.
//
// The variants of one benchmark and worker count run in separate child processes that all stay alive,
// and take turns repetition by repetition. A runtime's idle threads may go on spinning after its
// repetition ended: libgomp's, unless OMP_WAIT_POLICY=passive, spin for tens of milliseconds, and on
// a machine with as many cores as workers they take the CPU from the next variant's second worker
// (measured: slaw-wf after omp on lu at 2 workers ran on one core in 4 repetitions out of 5). So
// before each repetition the driver waits until the other children use (almost) no CPU.
#pragma once

#include <chrono>
#include <sys/types.h>
#include <vector>

namespace slawbench {

// CPU time used so far by every thread of `pid` (the sum of /proc/PID/task/*/schedstat's first
// field), in nanoseconds; 0 if the process is gone.
long long process_cpu_ns(pid_t pid);

// Waits until, over a `window`, the processes together used less than `busy_fraction` of one CPU,
// or until `limit` passed. Returns how long it waited and whether they went quiet.
struct quiet_wait {
  std::chrono::milliseconds waited;
  bool quiet;
};
quiet_wait wait_until_quiet(const std::vector<pid_t>& pids,
                            std::chrono::milliseconds window = std::chrono::milliseconds(5),
                            double busy_fraction = 0.05,
                            std::chrono::milliseconds limit = std::chrono::milliseconds(3000));

}  // namespace slawbench

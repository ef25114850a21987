// How many cores the arbiter manages when SLAW_CORES is unset: the CPUs in the process's affinity mask,
// capped by the cgroup v2 CPU quota (cpu.max) of the process's cgroup and of every ancestor, so that a
// container limited to 2 CPUs on a 64-core host manages 2 (docs/design/arbiter.md § Cores managed).
//
// A quota of Q µs per period of T µs allows Q/T CPUs; the cap is ⌈Q/T⌉ (at least 1): a 1.5-CPU limit
// manages 2 cores, as the CPU time allows more than one core's worth of threads to make progress. A
// missing file, a missing cgroup v2 mount or `max` means no cap. cgroup v1 (cpu.cfs_quota_us) is not read.
//
// The parsing functions take file contents and directories, so that tests run them on made-up trees.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace slaw::arbiter {

// CPUs in this process's affinity mask (sched_getaffinity); at least 1.
unsigned affinity_cpu_count();

// The cgroup v2 path from the text of /proc/self/cgroup (its "0::PATH" line); nullopt if there is none.
std::optional<std::string> cgroup2_path(std::string_view proc_self_cgroup);

struct cgroup2_mount {
  std::string root;   // the directory of the cgroup tree that is mounted (mountinfo field 4), e.g. "/"
  std::string point;  // where it is mounted, e.g. "/sys/fs/cgroup"
};
// The first cgroup2 mount in the text of /proc/self/mountinfo; nullopt if there is none.
std::optional<cgroup2_mount> find_cgroup2_mount(std::string_view mountinfo);

// The CPUs one cpu.max allows: quota/period, or nullopt for "max" or an unreadable line.
std::optional<double> parse_cpu_max(std::string_view text);

// The smallest CPU limit of the cgroup directory `mount_point + relative` and of each of its ancestors
// up to `mount_point` itself; nullopt when none has a limit (or no cpu.max can be read).
std::optional<double> cgroup_cpu_limit(const std::string& mount_point, const std::string& relative);

// min(affinity, ⌈limit⌉), at least 1.
unsigned cores_from(unsigned affinity, std::optional<double> limit);

// The CPU limit of this process's cgroup (reads /proc/self/cgroup, /proc/self/mountinfo, cpu.max).
std::optional<double> own_cgroup_cpu_limit();

// The default number of cores managed: cores_from(affinity_cpu_count(), own_cgroup_cpu_limit()).
unsigned default_cores();

}  // namespace slaw::arbiter

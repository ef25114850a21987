// Binding the calling thread to CPUs with hwloc, and reading a thread's CPUs back.
#pragma once

#include "places/cpu_set.hpp"
#include "places/topology.hpp"

namespace slaw::places {

// Binds the calling thread to `cpus` (hwloc_set_cpubind, HWLOC_CPUBIND_THREAD). `topology` must be
// the real machine's. Throws std::runtime_error naming the CPUs and the system's reason if it fails.
void bind_this_thread(const machine_topology& topology, const cpu_set& cpus);

// The calling thread's CPUs as hwloc reads them (hwloc_get_cpubind, HWLOC_CPUBIND_THREAD).
cpu_set this_thread_binding(const machine_topology& topology);

// The calling thread's affinity mask straight from the kernel (sched_getaffinity), without hwloc.
cpu_set this_thread_affinity();

}  // namespace slaw::places

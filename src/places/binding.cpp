#include "places/binding.hpp"

#include <hwloc.h>
#include <sched.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "places/hwloc_bitmap.hpp"
#include "places/omp_places.hpp"

namespace slaw::places {

void bind_this_thread(const machine_topology& topology, const cpu_set& cpus) {
  if (!topology.is_this_system())
    throw std::runtime_error("cannot bind a thread through a topology that is not this machine's (" +
                             topology.description() + ")");
  if (cpus.empty()) throw std::runtime_error("cannot bind a thread to an empty set of CPUs");
  unique_bitmap set = to_bitmap(cpus);
  if (hwloc_set_cpubind(topology.handle(), set.get(), HWLOC_CPUBIND_THREAD) != 0)
    throw std::runtime_error("cannot bind a thread to CPUs " + cpus.to_string() + ": " + std::strerror(errno));
}

cpu_set this_thread_binding(const machine_topology& topology) {
  unique_bitmap set = new_bitmap();
  if (hwloc_get_cpubind(topology.handle(), set.get(), HWLOC_CPUBIND_THREAD) != 0)
    throw std::runtime_error(std::string("cannot read the thread's CPU binding: ") + std::strerror(errno));
  return from_bitmap(set.get());
}

cpu_set this_thread_affinity() {
  // The kernel's mask may be larger than glibc's fixed cpu_set_t: grow until it fits.
  for (std::size_t n = CPU_SETSIZE; n <= 4 * (max_cpu + 1); n *= 2) {
    cpu_set_t* mask = CPU_ALLOC(n);
    if (!mask) throw std::bad_alloc();
    const std::size_t bytes = CPU_ALLOC_SIZE(n);
    if (sched_getaffinity(0, bytes, mask) == 0) {
      cpu_set s;
      for (std::size_t c = 0; c < n && c <= max_cpu; ++c)
        if (CPU_ISSET_S(c, bytes, mask)) s.insert(static_cast<unsigned>(c));
      CPU_FREE(mask);
      return s;
    }
    const int err = errno;
    CPU_FREE(mask);
    if (err != EINVAL) throw std::runtime_error(std::string("sched_getaffinity failed: ") + std::strerror(err));
  }
  throw std::runtime_error("sched_getaffinity: the affinity mask is larger than slaw reads");
}

}  // namespace slaw::places

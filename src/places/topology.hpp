// The machine as hwloc sees it, restricted to the CPUs this process may use: the intersection of
// hwloc's allowed set (the cgroup cpuset; disallowed CPUs are left out when the topology is loaded) and
// the process's affinity mask. No /proc or /sys parsing of our own: hwloc reads the machine.
//
// From it come the raw place trees of place_tree.hpp: the machine's objects (machine, packages, groups,
// dies, caches, cores, hardware threads; a NUMA node is named on the object it is attached to) with the
// places as leaves, either the units of an abstract name (cores, ...) or a given list of CPU sets.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "places/cpu_set.hpp"
#include "places/omp_places.hpp"
#include "places/place_tree.hpp"

struct hwloc_topology;  // hwloc's hwloc_topology_t is `struct hwloc_topology*`

namespace slaw::places {

// The largest hwloc synthetic machine slaw builds (SLAW_TOPOLOGY, load_synthetic): as many PUs as a
// runtime may have workers (hwloc inserts siblings in quadratic time: a flat `pu:4096` takes 1.4 s to
// build, `pu:8192` 13 s); the objects of every level and the NUMA nodes attached to them; the PU
// indexes an `indexes=` attribute may give (max_cpu); the description's length.
inline constexpr std::uint64_t max_synthetic_pus = 4096;
inline constexpr std::uint64_t max_synthetic_objects = 65536;
inline constexpr std::size_t max_synthetic_chars = 65536;

// The size of an hwloc synthetic description, measured as hwloc's parser reads it, before hwloc builds
// anything (hwloc allocates its objects and index arrays from the counts without a limit of its own):
// levels `[type:]count[(attributes)]` whose counts multiply, NUMA nodes attached with `[numa...]` (one
// per object of the level before), root attributes `(...)` first. Counts are read as strtoul(…, 0)
// reads them (decimal, 0x hex, 0 octal read as decimal: never less). The measure stops at the first
// limit passed; `problem` says which, and is empty if the description is within them. What is not
// hwloc's grammar is left to hwloc to refuse.
struct synthetic_measure {
  std::uint64_t pus = 0;      // the last level's objects
  std::uint64_t objects = 0;  // the root, every level's objects, the attached NUMA nodes
  std::string problem;
};
synthetic_measure synthetic_size(std::string_view description);

// The limits in words, for messages: "slaw builds synthetic machines of at most 8192 PUs and ...".
extern const char* const synthetic_limits;

class machine_topology {
 public:
  // The machine this process runs on. Throws std::runtime_error if hwloc cannot read it or no CPU is
  // usable.
  static std::shared_ptr<const machine_topology> load_system();
  // An hwloc synthetic description ("pack:2 l3:2 core:4 pu:2"), for tests: CPU numbers are the PUs'
  // os_index. If `usable` is given, the topology is restricted to it as load_system restricts to the
  // process's CPUs. Throws std::invalid_argument for a bad description or set.
  static std::shared_ptr<const machine_topology> load_synthetic(std::string_view description,
                                                                const cpu_set* usable = nullptr);

  machine_topology(const machine_topology&) = delete;
  machine_topology& operator=(const machine_topology&) = delete;
  ~machine_topology();

  const cpu_set& usable() const noexcept { return usable_; }
  // Whether threads can be bound through it (the real machine, not a synthetic one).
  bool is_this_system() const noexcept { return this_system_; }
  // "hwloc API 2.8" or "hwloc API 2.8, synthetic 'pack:2 core:2 pu:1'".
  const std::string& description() const noexcept { return description_; }

  // One leaf per unit of `level`, in hwloc's logical order: threads and tree: hardware threads (PUs);
  // cores; sockets: packages; ll_caches: the outermost data or unified cache above each CPU;
  // numa_domains: the innermost objects that have NUMA nodes attached. CPUs under no unit are in no
  // leaf. Returns an empty vector if the machine has no such unit (hwloc reports no caches, say).
  // `flat` is not a level (deployment.cpp makes its one place).
  std::vector<raw_node> unit_tree(abstract_name level) const;

  // The given places as leaves, each under the innermost object that contains all its CPUs (places
  // may overlap). Each place must be a subset of usable().
  std::vector<raw_node> list_tree(const std::vector<cpu_set>& places) const;

  hwloc_topology* handle() const noexcept { return topo_; }

 private:
  machine_topology() = default;
  void restrict_to(const cpu_set& usable);

  hwloc_topology* topo_ = nullptr;
  cpu_set usable_;
  bool this_system_ = false;
  std::string description_;
};

}  // namespace slaw::places

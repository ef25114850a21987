// The resolved deployment: the place tree, each worker's leaf place and binding. Resolved once when a
// runtime is built, from the settings (settings.hpp) and the machine (topology.hpp):
//
//   SLAW_PLACES unset or flat   one place holding every worker, no hwloc needed unless binding is on
//   an abstract name            the machine's tree cut at that level (cores: one leaf per core), the
//                               first N units for name(N)
//   an explicit list            the listed places as leaves, each under the innermost hwloc object
//                               containing it
//   SLAW_DEPLOYMENT             the file's places as leaves (placed in the machine's tree the same
//                               way), its worker-to-place map and its per-worker CPUs
//
// Workers go to the leaves as OpenMP assigns threads to places (OpenMP 5.2, "Controlling OpenMP
// Thread Affinity"): close for true, close, false and unset; spread for spread. A worker count that
// was not given is one worker per CPU of each place (flat and unbound: std::thread's
// hardware_concurrency, as before places existed), capped at max_workers with a warning (the capped
// count is then placed as a given one is). A place that receives no worker is left out of the
// tree (a warning says so). Bound workers are bound to their place's CPUs (or, from a deployment file,
// to their own line's CPUs).
//
// Errors (slaw::config_error, naming the variable, the bad part and what is accepted): CPUs outside
// the usable set, name(N) with more units than the machine has, an abstract name the machine has no
// unit for, more bound workers in a place than it has CPUs, a topology that cannot be read.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "places/cpu_set.hpp"
#include "places/place_tree.hpp"
#include "places/settings.hpp"
#include "places/topology.hpp"

namespace slaw::places {

enum class binding_kind : unsigned char { none, close, spread, file };
const char* to_string(binding_kind b) noexcept;

struct worker_place {
  std::size_t place = 0;  // its leaf
  cpu_set bind;           // the CPUs it is bound to; empty: not bound
};

struct deployment {
  place_tree tree;
  std::vector<worker_place> workers;
  binding_kind binding = binding_kind::none;
  std::string source;                 // what asked for it: "SLAW_PLACES=cores", "flat (SLAW_PLACES unset)"
  std::vector<std::string> warnings;  // for the runtime to print once
  std::shared_ptr<const machine_topology> topology;  // for binding; null when hwloc was not needed
};

using topology_source = std::function<std::shared_ptr<const machine_topology>()>;

// Throws slaw::config_error. `topology` is called at most once, and only if places or binding need it.
deployment resolve(const settings& s, const topology_source& topology = &machine_topology::load_system);

// OpenMP's assignment of `workers` threads to `places` places, as each worker's place index.
// close: worker i in place i when workers <= places; otherwise each place gets floor(workers/places)
// consecutive workers, the first (workers mod places) places one more. spread: worker i in place
// floor(i * places / workers) when workers <= places (the first place of its subpartition); close
// otherwise.
std::vector<std::size_t> assign_close(std::size_t workers, std::size_t places);
std::vector<std::size_t> assign_spread(std::size_t workers, std::size_t places);

}  // namespace slaw::places

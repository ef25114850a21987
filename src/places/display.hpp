// The resolved deployment shown to people (SLAW_DISPLAY_PLACES=1, as OpenMP's OMP_DISPLAY_ENV) and to
// programs (a JSON object for the SLAW_STATS output).
#pragma once

#include <string>

#include "places/deployment.hpp"

namespace slaw::places {

// Lines between "SLAW PLACES BEGIN" and "SLAW PLACES END": the source, the binding, the topology, then
// the tree, one place per line indented by depth, with its hwloc objects, CPUs and workers, and each
// leaf's workers with their binding; then the warnings.
std::string display_text(const deployment& d);

// {"source":…,"binding":…,"topology":…,"root":R,"leaves":L,
//  "places":[{"id":…,"parent":…|null,"depth":…,"leaf":…,"objects":[…],"cpus":[…],"workers":[…]},…],
//  "workers":[{"id":…,"place":…,"bound":[…]},…]}   ("bound":[] for a worker that is not bound)
std::string display_json(const deployment& d);

}  // namespace slaw::places

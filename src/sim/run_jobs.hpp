// slaw-sim --jobs: several jobs under two-level scheduling (docs/simulation.md, "Several jobs").
#pragma once

#include "sim/options.hpp"

namespace slaw::sim {

// Runs every core count x scheduler row x arbiter configuration of `o` on the same jobs, prints each
// run and its jobs, writes the CSVs; returns the exit status (1 if an invariant failed).
int run_sharing(const options& o);

}  // namespace slaw::sim

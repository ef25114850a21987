// Work/span analysis as Cilkscale reports it (OpenCilk's Cilkscale; He, Leiserson, Leiserson, "The
// Cilkview scalability analyzer", SPAA 2010), computed by the engine as it runs the DAG
// (docs/simulation.md, "Work and span").
//
// Strand weights are the workload's computation plus what a serial work-first run pays the runtime
// (a call, a work-first spawn, a finish): `work` is then exactly the one-worker work-first time
// without the start-up (a wake-up, taking the root) and the root's end. The span is the longest path
// through spawn, continuation and join edges; the burdened span adds Cilkscale's burden (15,000
// cycles by default) on every spawn's continuation and on every spawned task's join, the cost of a
// steal if every spawn were stolen.
#pragma once

#include "sim/event_queue.hpp"

namespace slaw::sim {

struct dag_analysis {
  time_ps work = 0, span = 0, burdened_span = 0;
  double parallelism() const { return span ? static_cast<double>(work) / static_cast<double>(span) : 0.0; }
  double burdened_parallelism() const {
    return burdened_span ? static_cast<double>(work) / static_cast<double>(burdened_span) : 0.0;
  }
  // Cilkscale's burdened-dag bound on the P-worker time: T1/P + 1.7 (1 - 1/P) burdened span (the 1.7
  // is Cilkview's span coefficient, as in Cilkscale's plotting script).
  double burdened_bound_seconds(unsigned p) const {
    const double t1 = to_seconds(work), b = to_seconds(burdened_span);
    return t1 / p + 1.7 * (1.0 - 1.0 / p) * b;
  }
};

}  // namespace slaw::sim

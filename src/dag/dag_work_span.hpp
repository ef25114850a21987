// Work and span of a recorded DAG, computed directly from the file (no simulation), under the finish
// semantics the simulator's analysis uses (src/sim/engine.cpp; docs/simulation.md, "Work and span"):
//   * a spawned child starts after the spawn and runs beside its parent's continuation; it joins the
//     finish that was innermost open in its parent when it was spawned: one of the parent's own, or,
//     outside them, the finish the parent itself joins (a task's spawns escape to its frame's finish);
//   * a called child runs in sequence: the caller continues when it returns, and the child's own
//     spawns outside its finishes join the caller's innermost open finish;
//   * end_finish continues after the latest of the finish's start and every child that joins it; the
//     root joins an implicit finish around the run, whose end is the span.
// Optional per-operation weights give the simulator's numbers exactly (its `call`, `spawn_wf`,
// `finish` costs and Cilkscale's burden, in the same unit as the strands: ns here); zero by default,
// which is the recorded computation alone.
//
// The traversal is the serial depth-first execution with an explicit stack (recorded DAGs can be
// 10^5 frames deep); in it finishes open and close in LIFO order, so they are a stack too.
#pragma once

#include <cstdint>

#include "dag/dag_reader.hpp"

namespace slaw::dag {

struct op_weights {
  std::uint64_t call = 0, spawn = 0, finish = 0;  // added to the strand at each call, spawn, start_finish
  std::uint64_t burden = 0;  // the burdened span's extra per spawn continuation and per spawned join
};

struct work_span {
  std::uint64_t work = 0, span = 0, burdened_span = 0;
  double parallelism() const { return span ? static_cast<double>(work) / static_cast<double>(span) : 0.0; }
};

work_span analyze(const dag_file& d, const op_weights& w = {});

}  // namespace slaw::dag

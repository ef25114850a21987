// The oracle: what a run of a program must show, from the program text alone. It interprets the program
// sequentially (its serial elision: a spawned task runs to completion where it is spawned), which
// yields everything a correct parallel run must agree with, since the programs share no data
// between tasks except through slots read after their finish and counters. Where a parallel run may
// legally differ — which of several thrown exceptions a finish rethrows — the oracle gives the set.
#pragma once

#include <cstdint>
#include <vector>

#include "program.hpp"

namespace rp {

enum class finish_end : std::uint8_t { normal, threw, abandoned };

struct expectation {
  struct finish {
    bool reached = false;
    finish_end how = finish_end::normal;
    std::vector<int> possible;  // how == threw: the ids it may rethrow
    int parent = -1;            // the finish that was innermost where this one was opened
    std::vector<int> tasks;     // tasks spawned inside it, transitively (the root task in finish 0)
    std::vector<int> slots;     // tasks with a slot that join it
    bool child_threw = false;   // some task joining it threw
    std::vector<int> child_ids; // ... one of these
  };
  std::vector<finish> finishes;
  std::vector<char> spawned;       // per task: runs (exactly once)
  std::vector<long> slot_value;    // per task with a slot: the value it holds after its finish
  std::vector<char> try_reached;   // per try
  std::vector<std::vector<int>> try_caught;  // per try: the ids it may catch; empty: it catches nothing
  std::vector<char> call_returned; // per call: returned normally
  std::vector<long> call_value;    //   ... with this value (non-void callees)
  bool run_threw = false;
  std::vector<int> run_possible;   // run_threw: the ids runtime::run may rethrow
  long run_value = 0;              // !run_threw and a non-void root: what runtime::run returns
  long isolated = 0, buffers = 0;  // isolated blocks run, buffers made
};

expectation interpret(const program& p);

}  // namespace rp

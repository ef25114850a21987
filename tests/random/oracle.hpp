// The oracle: what a run of a program must show, from the program text alone. It interprets the program
// sequentially (its serial elision: a spawned task runs to completion where it is spawned), which
// yields everything a correct parallel run must agree with, since the programs share no data
// between tasks except through slots read after their finish and counters. Where a parallel run may
// legally differ — which of several thrown exceptions a finish rethrows — the oracle gives the set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "program.hpp"

namespace rp {

enum class finish_end : std::uint8_t { normal, threw, abandoned };

// The runtime's place tree as plain data, read once per runtime through the public place API
// (runner.hpp: snapshot_places) before any program runs: what the oracle resolves the programs'
// abstract place choices against, and what the checker checks workers against. Numbering as the API's
// index(): leaves 0..leaves-1, then the internal places.
struct place_view {
  std::size_t leaves = 1, root = 0;         // the flat deployment: one place, leaf and root at once
  std::vector<std::size_t> parent{0};       // per place; the root's is the root
  std::vector<std::vector<unsigned>> workers;  // per place: the workers of its subtree, ascending
};

// The place a spawn's clause names, for a spawner whose place is `here`.
std::size_t resolve(const place_view& t, place_choice c, std::uint32_t k, std::size_t here);

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
  std::vector<std::size_t> task_place;  // per task that runs: its place (the root task: the root)
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

// Places follow the program text: a spawn's clause resolved against `places`, else the spawner's
// place; calls and finish bodies keep their caller's. Without a view, the flat deployment's one place.
expectation interpret(const program& p, const place_view* places = nullptr);

}  // namespace rp

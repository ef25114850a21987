// The runner: executes a program on a slaw runtime and records what happened (an observation), for
// check.hpp to compare with the oracle. Each function of the program runs as one coroutine frame that
// interprets the function's statements, so scopes, slots and buffers live in that frame as they would
// in hand-written code.
#pragma once

#include <string>
#include <vector>

#include "oracle.hpp"
#include "program.hpp"
#include "slaw/slaw.hpp"

namespace rp {

// Where a task was seen running (place programs only): its worker (slaw::this_worker()) and
// slaw::here().index(), at the start of each of its frames (its own, its calls', its finish bodies')
// and after every co_await that may suspend or hand the continuation to a thief.
enum class place_point : std::uint8_t { start, spawn, call, end_finish, finish, buffer, caught };
const char* to_string(place_point p);

struct place_rec {
  int task;      // the task whose strand the frame belongs to
  int fn;        // the frame's function
  int pc;        // the instruction after which it was taken (-1: the frame's start)
  place_point point;
  unsigned worker;
  std::size_t here;
};

struct observation {
  struct finish {
    bool reached = false;
    finish_end how = finish_end::normal;
    int exc = -1;          // how == threw: the id it rethrew
    int ended_inside = 0;  // of the oracle's tasks inside it, how many had ended when it ended
  };
  std::vector<finish> finishes;
  std::vector<int> task_runs, task_ended;  // per task
  std::vector<char> slot_seen;             // per task: its slot was read when its finish ended
  std::vector<long> slot_value;
  std::vector<char> try_reached;
  std::vector<int> try_caught;  // -1: nothing caught
  std::vector<char> call_returned;
  std::vector<long> call_value;
  bool run_threw = false;
  int run_exc = -1;
  long run_value = 0;
  long isolated = 0, buffers = 0;
  std::vector<std::string> errors;  // found while running: buffer contents, overlapping isolated, ...
  std::vector<place_rec> places;    // with a place view only
};

// The oracle's finish lists (tasks inside, slots joining) tell the runner what to look at when a finish
// ends; everything else comes from the program.
// With `places` (the runtime's tree, from snapshot_places) the runner also records place_recs; the
// flat tests pass none and run exactly as before.
observation run_program(slaw::runtime& rt, const program& p, const expectation& e, const place_view* places = nullptr);

// The runtime's place tree read through the public API (root_place, children, parent, workers,
// place(i), num_places) from inside a task, with the API's own consistency checked: lines in `errors`.
place_view snapshot_places(slaw::runtime& rt, std::vector<std::string>& errors);

}  // namespace rp

// Where the simulated computation comes from: a DAG source describes, task by task, what each task's
// body does next (docs/simulation.md, "Workloads").
//
// The DAG is never materialised. A task is a small record (`body`: a few integers of arguments and a
// program counter); the source's `next` advances it to its next operation and says how long the
// computation before that operation takes. The engine owns the records (from a free list), so
// 10^8 tasks cost only the live ones. A generated workload implements this interface from its
// recursion; a recorded DAG file (SLAW_RECORD, later) will implement it by reading each task's events.
#pragma once

#include <cstdint>
#include <string>

#include "sim/event_queue.hpp"
#include "slaw/policy/adp.hpp"

namespace slaw::sim {

// A task's arguments and position in its body, owned by the engine, interpreted by the source.
struct body {
  std::uint64_t a = 0, b = 0;  // arguments (workload-defined)
  std::uint32_t c = 0;         // argument or loop counter (workload-defined)
  std::uint32_t pc = 0;        // program counter: 0 when the task starts
  std::uint64_t d = 0;         // argument (workload-defined)
};

enum class op : std::uint8_t {
  spawn,         // async child (clause in `clause`)
  call,          // sequential call of child
  start_finish,  // open a finish scope in this task
  end_finish,    // end the innermost open finish of this task
  alloc,         // user memory of `bytes`: waits for quota under DFDeques(K) (slaw::make_buffer)
  free,          // releases `bytes` of user memory allocated by this task
  ret,           // the task ends
  give_up,       // engine-internal: a DFDeques dummy task gives up its deque (never from a source)
};

struct step {
  time_ps work = 0;  // the computation before the operation
  op what = op::ret;
  body child{};                // spawn, call: the child's arguments (pc 0)
  std::uint32_t child_bytes = 0;  // spawn, call: the child's frame size
  std::int64_t bytes = 0;         // alloc, free
  policy::schedule clause = policy::schedule::dyn;
  bool dummy = false;  // engine-internal: the child is a DFDeques dummy task (never from a source)
};

class dag_source {
 public:
  virtual ~dag_source() = default;
  // A short name for tables, e.g. "fib:30".
  virtual std::string name() const = 0;
  // The root task's arguments and frame size.
  virtual body root() const = 0;
  virtual std::uint32_t root_bytes() const = 0;
  // Advances `t` to its next operation. Called once per operation, in the order the simulated
  // schedule runs them; a source whose shape depends on the schedule (PDFS) sees that order.
  virtual step next(body& t) = 0;
  // Called before each simulated run: forget the state of the last run.
  virtual void reset() {}
  // The number of tasks (root included) if the source knows it in advance (closed forms), else 0.
  virtual std::uint64_t expected_tasks() const { return 0; }
  // What one strand costs and what a task's frame holds, for docs and --list.
  virtual std::string cost_model() const = 0;
};

}  // namespace slaw::sim

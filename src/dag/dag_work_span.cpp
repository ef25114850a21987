// Work and span of a recorded DAG by a serial depth-first walk with explicit stacks (dag_work_span.hpp).
// Each step mirrors the simulator's analysis (engine.cpp: advance, op_start_finish, exit_finish,
// op_spawn, op_call, op_ret, join_edge), so that with the same weights the numbers are the same.
#include "dag/dag_work_span.hpp"

#include <algorithm>
#include <vector>

namespace slaw::dag {

namespace {

struct frame {
  std::uint64_t task;
  std::uint64_t pos;         // stream offset of the task's next event
  std::uint64_t span, bspan;  // the longest paths to this point of the task
  std::uint64_t cur;         // index of its innermost open finish in the finish stack
  std::uint64_t join;        // the finish it joins (spawned), or `sequential` (called)
};

struct open_finish {
  std::uint64_t span, bspan;  // the latest of its start and of its joined children
  std::uint64_t parent;       // the innermost open finish of the opener before it
};

constexpr std::uint64_t sequential = ~std::uint64_t{0};

}  // namespace

work_span analyze(const dag_file& d, const op_weights& w) {
  work_span out;
  std::vector<open_finish> fins{{0, 0, sequential}};  // 0: the implicit finish around the run
  std::vector<frame> stack{{0, d.first_event(0), 0, 0, 0, 0}};
  event e;
  while (!stack.empty()) {
    frame& f = stack.back();
    f.pos = d.decode(f.pos, e);
    f.span += e.work_ns;
    f.bspan += e.work_ns;
    out.work += e.work_ns;
    switch (e.op) {
      case dag_op::start_finish:
        fins.push_back({f.span, f.bspan, f.cur});
        f.cur = fins.size() - 1;
        f.span += w.finish;
        f.bspan += w.finish;
        out.work += w.finish;
        break;
      case dag_op::end_finish: {
        // The innermost open finish of this task is the top of the finish stack: everything opened
        // after it closed before this task went on.
        const open_finish g = fins[f.cur];
        f.span = std::max(f.span, g.span);
        f.bspan = std::max(f.bspan, g.bspan);
        f.cur = g.parent;
        fins.pop_back();
        break;
      }
      case dag_op::spawn: {
        f.span += w.spawn;
        f.bspan += w.spawn;
        out.work += w.spawn;
        const frame child{e.arg, d.first_event(e.arg), f.span, f.bspan, f.cur, f.cur};
        f.bspan += w.burden;  // on the continuation
        stack.push_back(child);  // invalidates f
        break;
      }
      case dag_op::call: {
        f.span += w.call;
        f.bspan += w.call;
        out.work += w.call;
        const frame child{e.arg, d.first_event(e.arg), f.span, f.bspan, f.cur, sequential};
        stack.push_back(child);
        break;
      }
      case dag_op::alloc:
      case dag_op::free: break;
      case dag_op::ret: {
        const frame done = f;
        stack.pop_back();
        if (done.join == sequential) {  // back to the caller, whose clocks it carried
          stack.back().span = done.span;
          stack.back().bspan = done.bspan;
        } else {
          open_finish& g = fins[done.join];
          g.span = std::max(g.span, done.span);
          g.bspan = std::max(g.bspan, done.bspan + (done.task != 0 ? w.burden : 0));
        }
        break;
      }
    }
  }
  out.span = fins[0].span;
  out.burdened_span = fins[0].bspan;
  return out;
}

}  // namespace slaw::dag

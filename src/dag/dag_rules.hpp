// The rules a recorded DAG obeys (dag_format.hpp), checked by both the writer (before it writes) and the
// reader (before anything uses a file), so that a file the writer accepts is one the reader accepts.
// Header-only: the writer is compiled into the runtime library from its one .cpp.
//
// Per task: at least one event; the last event, and only that one, is `ret`; start_finish/end_finish
// pair up like brackets; a clause only on a spawn, and one of policy::schedule's values; a spawn's or
// call's child is a task id in [1, task_count) that no other spawn or call names. Over the DAG: every
// task but the root is some spawn's or call's child, and following the parents from any task reaches
// the root (no cycles). Two limits of the simulator, not of the format: the total work fits its
// picosecond clock, and the bytes allocated (and freed) in all fit a signed 64-bit count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dag/dag_event.hpp"

namespace slaw::dag {

// 2^52 ns (52 days) of work: times 1000 for picoseconds, with the runtime's modelled costs on top, it
// stays far below 2^63.
inline constexpr std::uint64_t max_total_work_ns = std::uint64_t{1} << 52;
// The sum of all alloc arguments, and separately of all free arguments.
inline constexpr std::uint64_t max_total_bytes = std::uint64_t{1} << 62;
inline constexpr std::uint8_t max_clause = 2;  // policy::schedule::hf

struct dag_totals {
  std::uint64_t events = 0, spawns = 0, calls = 0, finishes = 0, allocs = 0, frees = 0;
  std::uint64_t work_ns = 0, alloc_bytes = 0, free_bytes = 0;
};

class rules {
 public:
  explicit rules(std::uint64_t task_count) : parent_(task_count, unset) {}

  // Task `id`'s events begin; it has `events` of them. Returns the problem, empty if none.
  std::string begin_task(std::uint64_t id, std::uint64_t events) {
    task_ = id;
    events_ = events;
    index_ = 0;
    depth_ = 0;
    if (events == 0) return "the task has no events (every task ends with ret)";
    return {};
  }

  // The current task's next event. Returns the problem, empty if none.
  std::string check(const event& e) {
    const std::uint64_t i = index_++;
    if (static_cast<unsigned>(e.op) >= dag_op_count)
      return "op " + std::to_string(static_cast<unsigned>(e.op)) + " is not an operation (accepted 0-6: spawn, call, "
             "start_finish, end_finish, alloc, free, ret)";
    if (e.clause != 0 && e.op != dag_op::spawn)
      return "a clause (" + std::to_string(e.clause) + ") on " + dag_op_name(e.op) + ": only a spawn carries one";
    if (e.clause > max_clause)
      return "clause " + std::to_string(e.clause) + " is not a schedule (accepted 0 dyn, 1 wf, 2 hf)";
    if (!has_argument(e.op) && e.arg != 0)
      return std::string(dag_op_name(e.op)) + " carries no argument, but has " + std::to_string(e.arg);
    if (e.work_ns > max_total_work_ns - t_.work_ns)
      return "the total work passes 2^52 ns (52 days), more than the simulator's clock holds";
    t_.work_ns += e.work_ns;
    ++t_.events;
    const bool last = i + 1 == events_;
    if (e.op == dag_op::ret) {
      if (!last) return "ret before the task's last event (" + std::to_string(events_) + " events)";
      if (depth_ != 0) return "ret with " + std::to_string(depth_) + " finish(es) still open";
      return {};
    }
    if (last) return std::string("the task's last event is ") + dag_op_name(e.op) + ", not ret";
    switch (e.op) {
      case dag_op::start_finish:
        ++depth_;
        ++t_.finishes;
        return {};
      case dag_op::end_finish:
        if (depth_ == 0) return "end_finish without a start_finish open in this task";
        --depth_;
        return {};
      case dag_op::spawn:
      case dag_op::call: {
        ++(e.op == dag_op::spawn ? t_.spawns : t_.calls);
        if (e.arg == 0) return std::string(dag_op_name(e.op)) + " of task 0, the root (the root is no task's child)";
        if (e.arg >= parent_.size())
          return std::string(dag_op_name(e.op)) + " of task " + std::to_string(e.arg) + ", out of range (the DAG has " +
                 std::to_string(parent_.size()) + " tasks)";
        if (parent_[e.arg] != unset)
          return std::string(dag_op_name(e.op)) + " of task " + std::to_string(e.arg) + ", already the child of task " +
                 std::to_string(parent_[e.arg]) + " (a task has one parent)";
        parent_[e.arg] = task_;
        return {};
      }
      case dag_op::alloc:
      case dag_op::free: {
        std::uint64_t& sum = e.op == dag_op::alloc ? t_.alloc_bytes : t_.free_bytes;
        ++(e.op == dag_op::alloc ? t_.allocs : t_.frees);
        if (e.arg > max_total_bytes - sum)
          return std::string("the bytes of all ") + dag_op_name(e.op) + "s pass 2^62";
        sum += e.arg;
        return {};
      }
      default: return {};
    }
  }

  // After every task's events: each task but the root has a parent and reaches the root through its
  // parents. On a problem, `task` is the task it is about.
  std::string check_tree(std::uint64_t& task) {
    const std::uint64_t n = parent_.size();
    for (std::uint64_t t = 1; t < n; ++t) {
      if (parent_[t] == unset) {
        task = t;
        return "no spawn or call names this task (every task but the root is one's child)";
      }
    }
    // Follow each task's parents until a task known to reach the root; a task seen twice on the way is
    // a cycle. Each task is walked once: O(task_count), no recursion.
    enum : std::uint8_t { unknown, on_path, reaches_root };
    std::vector<std::uint8_t> state(n, unknown);
    if (n) state[0] = reaches_root;
    std::vector<std::uint64_t> path;
    for (std::uint64_t t = 1; t < n; ++t) {
      path.clear();
      std::uint64_t x = t;
      while (state[x] == unknown) {
        state[x] = on_path;
        path.push_back(x);
        x = parent_[x];
      }
      if (state[x] == on_path) {
        task = t;
        return "not reachable from the root: its parents (the tasks that spawn or call it) loop back to task " +
               std::to_string(x);
      }
      for (std::uint64_t y : path) state[y] = reaches_root;
    }
    return {};
  }

  const dag_totals& totals() const noexcept { return t_; }
  std::uint64_t event_index() const noexcept { return index_; }  // the next event's index in its task

 private:
  static constexpr std::uint64_t unset = ~std::uint64_t{0};
  std::vector<std::uint64_t> parent_;  // the task that spawns or calls each task
  std::uint64_t task_ = 0, events_ = 0, index_ = 0, depth_ = 0;
  dag_totals t_;
};

}  // namespace slaw::dag

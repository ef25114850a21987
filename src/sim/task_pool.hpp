// Compact task and finish records, reused through free lists (docs/simulation.md, "Engine").
//
// A simulated task is what the runtime's promise_base is (include/slaw/detail/worker.hpp): its kind,
// the parent to resume, the finish it ends its unit in (`join`), its innermost open finish (`cur`),
// plus the workload's arguments and program counter, its frame size and the span clocks of the
// work/span analysis. Records of ended tasks are reused, so memory follows the live tasks only.
#pragma once

#include <cassert>
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/contention.hpp"
#include "sim/dag_source.hpp"

namespace slaw::sim {

using task_id = std::uint32_t;
using finish_id = std::uint32_t;
inline constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();

// As detail::task_kind: called (sequential call), spawned (work-first child, may own a preempted
// entry), queued (help-first child or root: counted in its finish when spawned).
enum class task_kind : std::uint8_t { called, spawned, queued };

struct task {
  body state;
  task_id parent = none;  // called: the caller; spawned: the parent to resume
  finish_id join = none;  // spawned/queued: the finish it ends its unit in
  finish_id cur = none;   // innermost open finish of the code running in this task
  std::uint32_t bytes = 0;          // frame size
  std::uint32_t start_charge = 0;   // DFDeques give-ups: frame bytes its starter pays for
  std::uint16_t owner = 0;          // the worker whose allocator made the frame
  std::uint16_t user_owner = 0;     // the worker that allocated its user memory
  std::uint16_t job = 0;            // the job it belongs to
  task_kind kind = task_kind::called;
  std::uint8_t retry = 0;           // an alloc (1) or a dummy task's give-up (2) to resume with
  std::uint8_t builtin = 0;         // 0: the workload's task; 1: a DFDeques dummy task (state.a = count)
  std::uint8_t saved = 0;           // several jobs: captured when its worker parked; its pending step
                                    // waits in engine::saved_ for whoever resumes it
  std::int64_t retry_bytes = 0;
  time_ps span = 0, bspan = 0;      // longest path to this point (work/span analysis)
};

struct finish {
  std::uint64_t count = 1;  // counted units not yet ended (docs/design/finish.md); the body is one
  finish_id parent = none;
  task_id waiter = none;
  std::uint32_t depth = 0;  // sync-tree depth; 0 for a job's root finish
  std::uint32_t job = 0;
  time_ps span = 0, bspan = 0;  // the latest join into this finish (work/span analysis)
  std::uint64_t live = 0;       // checks: tasks with this finish as IEF not yet ended
  contended_line line;          // its counter's cache line (help-first spawns, arrivals, the end)
};

template <class T>
class record_pool {
 public:
  std::uint32_t make() {
    std::uint32_t id;
    if (!free_.empty()) {
      id = free_.back();
      free_.pop_back();
      items_[id] = T{};
    } else {
      id = static_cast<std::uint32_t>(items_.size());
      assert(id < (std::uint32_t{1} << 30) && "more than 2^30 live records");
      items_.emplace_back();
    }
    ++live_;
    if (live_ > peak_) peak_ = live_;
    return id;
  }
  void release(std::uint32_t id) {
    free_.push_back(id);
    --live_;
  }
  T& operator[](std::uint32_t id) noexcept { return items_[id]; }
  const T& operator[](std::uint32_t id) const noexcept { return items_[id]; }
  std::uint64_t live() const noexcept { return live_; }
  std::uint64_t peak() const noexcept { return peak_; }
  std::size_t capacity() const noexcept { return items_.size(); }

 private:
  std::vector<T> items_;
  std::vector<std::uint32_t> free_;
  std::uint64_t live_ = 0, peak_ = 0;
};

// Deque entries: a task id shifted left by 2 with the runtime's tags (worker.hpp): untagged, a
// work-first child standing for its parent's continuation; parent_tag, a continuation whose child is
// already counted; start_tag, a task not begun (DFDeques give-ups only).
using entry = std::uint32_t;
inline constexpr entry no_entry = std::numeric_limits<entry>::max();
inline constexpr entry parent_tag = 1, start_tag = 2, entry_tags = 3;
inline constexpr entry make_entry(task_id t, entry tag = 0) noexcept { return (t << 2) | tag; }
inline constexpr task_id entry_task(entry e) noexcept { return e >> 2; }

}  // namespace slaw::sim

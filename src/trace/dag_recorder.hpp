// The computation-DAG recorder (SLAW_RECORD=path, docs/simulation.md "Recorded DAGs").
//
// A recording runtime logs every operation of its first run() in program order per task: spawns (with
// the child and its schedule clause), sequential calls, finish scopes opened and ended, returns, and
// the computation each task did since its previous operation. The file it writes
// (src/dag/dag_format.hpp) is what `slaw-sim --dag` replays.
//
// How tasks are told apart without a field in every frame: each event names the frame it happened in
// (the promise's address) and carries a number from one process-wide counter (an atomic RMW, paid only
// while recording). Numbers follow happens-before: a task's events are ordered by them even when its
// strands ran on different workers, a child's spawn precedes its first event, and a frame's `ret`
// precedes the next task allocated at the same address. After the run the logs are merged by number,
// and each spawn or call starts a new task at its child's address, which its `ret` ends.
//
// Time: a worker notes when it starts or resumes running a task (`resume`), and each event carries the
// clock ticks since the worker's previous note or event: the task's computation since its previous
// operation, without the time the worker spent elsewhere. The recorder's own time (one clock reading
// and an append per event) is charged to the next piece, as a profiler's probe is.
//
// User memory (slaw::allocate/deallocate, so slaw::buffer) is an alloc or free event of the frame the
// worker runs, which the log follows from the same notes. The runtime's own tasks are not the
// program's: DFDeques' dummy tasks (slaw::reserve of more than K, src/core/memory.cpp) are spawned
// `internal`, and the merge drops them, what they do, and the finish that waits for them; the simulator
// models them itself from the alloc event.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dag/dag_format.hpp"
#include "trace/trace_clock.hpp"

namespace slaw::detail {

class dag_recorder;

struct dag_raw_event {
  std::uint64_t seq;    // process-wide order (happens-before consistent)
  std::uint64_t ticks;  // computation since the worker's previous note, in trace_clock ticks
  const void* frame;    // the frame the operation happened in
  std::uint64_t arg;    // spawn/call: the child's frame address; alloc/free: bytes
  std::uint32_t child_bytes;  // spawn/call: the child's frame size
  dag::dag_op op;
  std::uint8_t clause;  // spawn: policy::schedule
  bool internal;        // spawn: a task of the runtime's own (dropped with everything it does)
};

// The name that marks the runtime's own spawns (DFDeques' dummy tasks).
extern const char dag_internal_task[];

// One worker's log. Only its worker writes it; the recorder reads it after the workers stopped.
class alignas(64) dag_log {
 public:
  void attach(dag_recorder* r, const trace_clock* clock) noexcept {
    rec_ = r;
    clock_ = clock;
  }
  // The worker starts or resumes running `frame`: its computation is counted from now.
  void resume(const void* frame) noexcept {
    since_ = clock_->now();
    running_ = frame;
  }
  // An operation of `frame`, after which the worker runs `next` (the same frame, a child, a caller).
  inline void note(dag::dag_op op, const void* frame, const void* next, std::uint64_t arg = 0,
                   std::uint32_t child_bytes = 0, std::uint8_t clause = 0, bool internal = false) noexcept;
  // User memory of the running frame.
  void note_memory(dag::dag_op op, std::uint64_t bytes) noexcept {
    if (running_) note(op, running_, running_, bytes);
  }
  // A wait in place runs other tasks on this thread, then the waiting frame again.
  void wait_begins() { waiting_.push_back(running_); }
  void wait_ends() noexcept {
    running_ = waiting_.back();
    waiting_.pop_back();
    since_ = clock_->now();
  }
  const std::vector<dag_raw_event>& events() const noexcept { return ev_; }

 private:
  dag_recorder* rec_ = nullptr;
  const trace_clock* clock_ = nullptr;
  std::uint64_t since_ = 0;
  const void* running_ = nullptr;  // the frame this worker runs now (null: none known)
  std::vector<const void*> waiting_;
  std::vector<dag_raw_event> ev_;
};

class dag_recorder {
 public:
  // Opens (truncates) `path` now, so that a bad path fails when the runtime is built: throws
  // config_error naming SLAW_RECORD and the path.
  dag_recorder(const std::string& path, unsigned workers);
  ~dag_recorder();
  dag_recorder(const dag_recorder&) = delete;
  dag_recorder& operator=(const dag_recorder&) = delete;

  dag_log& log(unsigned worker) noexcept { return logs_[worker]; }
  bool on() const noexcept { return on_.load(std::memory_order_relaxed); }
  std::uint64_t next_seq() noexcept { return seq_.fetch_add(1, std::memory_order_relaxed); }

  // runtime::run: the first run's root is recorded (true); a later or concurrent run is not (false).
  bool begin_run(const void* root, std::uint32_t root_bytes) noexcept;
  // The recorded run ended: stop logging (later events of other runs are not kept).
  void end_run() noexcept;

  // Call once, after the workers stopped: builds the DAG and writes the file; reports on stderr where
  // it went, or why it could not be written (never throws: it runs in a destructor).
  void write() noexcept;

 private:
  std::string path_;
  unsigned workers_;
  trace_clock clock_;
  std::unique_ptr<dag_log[]> logs_;
  std::atomic<std::uint64_t> seq_{0};
  std::atomic<bool> on_{false};
  std::atomic<bool> claimed_{false};
  const void* root_ = nullptr;
  std::uint32_t root_bytes_ = 0;
  std::uint64_t run_start_ = 0, run_end_ = 0;
};

inline void dag_log::note(dag::dag_op op, const void* frame, const void* next, std::uint64_t arg,
                          std::uint32_t child_bytes, std::uint8_t clause, bool internal) noexcept {
  running_ = next;
  if (!rec_ || !rec_->on()) return;
  const std::uint64_t t = clock_->now();
  ev_.push_back({rec_->next_seq(), t - since_, frame, arg, child_bytes, op, clause, internal});
  since_ = t;
}

}  // namespace slaw::detail

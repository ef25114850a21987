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
// operation, without the time the worker spent elsewhere. The recorder keeps its own work out of the
// strands: an event reads the clock first (the strand ends), then takes its number and appends itself
// to a chunked log (new chunks come from mmap, already populated, and nothing is ever copied), and
// reads the clock again last (the next strand starts). What still falls inside a strand (reaching the
// hook and the two clock readings' halves) is measured when the recorder is built (`calibrate`) and
// subtracted from every strand when the DAG is built.
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
#include "trace/output_file.hpp"
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

// A piece of a log: a header and events, in one mapping. Chunks are linked in the order they were
// filled; the log's last one is partly filled. Each chunk is twice the size of the one before, up to
// dag_chunk_max: a worker maps memory (a system call, which also leaves the caches and predictors
// the next strands find colder) a logarithmic number of times, and nothing is ever copied.
struct dag_chunk {
  dag_chunk* next;
  std::size_t bytes;  // the mapping's size
  std::size_t count;  // events written (set when the log moves on to the next chunk)
  dag_raw_event* events() noexcept { return reinterpret_cast<dag_raw_event*>(this + 1); }
  std::size_t capacity() const noexcept { return (bytes - sizeof(dag_chunk)) / sizeof(dag_raw_event); }
};
inline constexpr std::size_t dag_chunk_min = std::size_t{256} << 10;
inline constexpr std::size_t dag_chunk_max = std::size_t{4} << 20;

// The name that marks the runtime's own spawns (DFDeques' dummy tasks).
extern const char dag_internal_task[];

// One worker's log. Only its worker writes it; the recorder reads it after the workers stopped.
class alignas(64) dag_log {
 public:
  dag_log() = default;
  ~dag_log();
  dag_log(const dag_log&) = delete;
  dag_log& operator=(const dag_log&) = delete;

  void attach(dag_recorder* r, const trace_clock* clock) noexcept {
    rec_ = r;
    clock_ = clock;
  }
  // The worker starts or resumes running `frame`: its computation is counted from now.
  void resume(const void* frame) noexcept {
    since_ = read_clock();
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
    since_ = read_clock();
  }

  // The events, in the order they were appended (their numbers increase), read after the workers
  // stopped. take() hands each chunk back to the system once the reader moved past it.
  std::size_t size() const noexcept;
  class reader {
   public:
    explicit reader(dag_log& log) noexcept;
    ~reader();
    reader(const reader&) = delete;
    reader& operator=(const reader&) = delete;
    const dag_raw_event* peek() const noexcept { return at_ == end_ ? nullptr : at_; }
    void take() noexcept;

   private:
    void enter(dag_chunk* c) noexcept;
    dag_log& log_;
    dag_chunk* chunk_ = nullptr;
    const dag_raw_event* at_ = nullptr;
    const dag_raw_event* end_ = nullptr;
  };
  // Events that could not be appended because no memory was left for a chunk (then nothing more is).
  std::uint64_t lost() const noexcept { return lost_; }
  // Forgets every event, keeping the first chunk (its pages already populated).
  void clear() noexcept;

 private:
  friend class dag_recorder;
  bool grow() noexcept;  // a new chunk; false if none could be mapped
  void release() noexcept;
  dag_chunk* drop_first() noexcept;  // unmaps the first chunk; returns the next
  inline std::uint64_t read_clock() const noexcept;
  dag_recorder* rec_ = nullptr;
  const trace_clock* clock_ = nullptr;
  std::uint64_t since_ = 0;
  const void* running_ = nullptr;  // the frame this worker runs now (null: none known)
  dag_raw_event* cur_ = nullptr;   // the next event's place in the last chunk
  dag_raw_event* end_ = nullptr;   // the last chunk's end
  dag_chunk* first_ = nullptr;
  dag_chunk* last_ = nullptr;
  std::uint64_t lost_ = 0;
  std::vector<const void*> waiting_;
};

class dag_recorder {
 public:
  // Opens `path` now (output_file.hpp's rules), so that a bad path fails when the runtime is built:
  // throws config_error naming SLAW_RECORD and the path. Measures the recorder's own cost per event
  // (calibrate).
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

  // Call once, after the workers stopped: builds the DAG and writes the file; says on stderr where it
  // went. Returns why it could not be written ("SLAW_RECORD='PATH': ..."), empty if it was.
  std::string write();

  // The recorder's cost left inside each strand, in clock ticks and in ns (calibrate).
  std::uint64_t overhead_ticks() const noexcept { return overhead_ticks_; }
  double overhead_ns() const noexcept { return static_cast<double>(overhead_ticks_) * clock_.ns_per_tick(); }

 private:
  // What an event leaves between the clock readings that bound the strands around it: the median over
  // back-to-back events, each reached through a call as the hooks reach it (the least of a few rounds,
  // so that an interruption during one round does not count).
  void calibrate() noexcept;
  output_file out_;
  unsigned workers_;
  trace_clock clock_;
  std::unique_ptr<dag_log[]> logs_;
  std::atomic<std::uint64_t> seq_{0};
  std::atomic<bool> on_{false};
  std::atomic<bool> claimed_{false};
  const void* root_ = nullptr;
  std::uint32_t root_bytes_ = 0;
  std::uint64_t run_start_ = 0, run_end_ = 0;
  std::uint64_t overhead_ticks_ = 0;
};

// A clock reading that waits for the instructions before it to complete (on x86 the TSC is read out of
// order otherwise): a strand's end is read after its last instruction, and its start after the
// recorder's last store (the fence before it drains them, misses and all).
inline std::uint64_t dag_log::read_clock() const noexcept {
#if defined(__x86_64__)
  _mm_lfence();
#endif
  return clock_->now();
}

inline void dag_log::note(dag::dag_op op, const void* frame, const void* next, std::uint64_t arg,
                          std::uint32_t child_bytes, std::uint8_t clause, bool internal) noexcept {
  running_ = next;
  if (!rec_ || !rec_->on()) return;
  const std::uint64_t t = read_clock();  // the strand ends here
  if (cur_ == end_ && !grow()) [[unlikely]] {
    ++lost_;
    return;
  }
  *cur_++ = {rec_->next_seq(), t - since_, frame, arg, child_bytes, op, clause, internal};
  __builtin_prefetch(cur_ + 8, 1);  // the lines a few events ahead are owned before they are written
  std::atomic_thread_fence(std::memory_order_seq_cst);
  since_ = read_clock();  // the next strand starts here, after the append
}

}  // namespace slaw::detail

// One worker's timeline recorder (SLAW_TRACE=timeline:PATH, docs/guide/tracing.md).
//
// The worker appends fixed-size events to a buffer allocated when the runtime is built: no allocation,
// no lock and no atomic operation while recording (only the owner writes; the writer reads after the
// worker threads were joined). The last slot is kept for a `buffer_full` marker: once the buffer is
// full, later events are counted in `dropped` and not kept, and the writer closes what was open at the
// marker.
//
// A task segment is recorded as one `segment` event where it begins (its kind, its task's name, the
// flow id of the steal that started it); it ends where the worker's next `segment`, `idle` or
// `buffer_full` event is. So a worker's segments cannot overlap, and one event per switch suffices.
#pragma once

#include <cstddef>
#include <cstdint>

#include "trace/trace_clock.hpp"

namespace slaw::detail {

// How a segment began (the trace's `cat`, and the viewer's colour).
enum class segment_kind : std::uint8_t {
  root,     // a run's root task starts
  wf,       // a work-first child starts (its parent's continuation was pushed)
  hf,       // a help-first task starts, taken from this worker's own fresh deque
  stolen,   // a task or continuation stolen from another worker (or an ownerless deque) starts
  resumed,  // a suspended frame goes on: after its work-first child returned, its finish completed,
            // a wait in place ended, or taken back from this worker's own preempted deque
  mailbox,  // a task or waiting frame taken from a place's mailbox (docs/design/places.md)
  none,     // (pending only) nothing found yet
};
inline constexpr unsigned segment_kinds = 6;

// Where a quota give-up happened (DFDeques, docs/design/space.md).
enum class give_up_at : std::uint8_t { spawn, call, reserve };

struct tl_event {
  enum type_t : std::uint8_t { segment, idle, steal, park, wake, sample, give_up, buffer_full };
  std::uint64_t t;  // trace_clock ticks
  std::uint64_t a;  // segment: the task's name (const char*) or 0; steal: victim + 1 (0: ownerless);
                    // sample: preempted deque size << 32 | fresh deque size
  std::uint64_t b;  // segment, steal: the steal's flow id (0: none); sample: live frame bytes
  std::uint32_t c;  // sample: work-first depth
  type_t type;
  std::uint8_t sub;  // segment: segment_kind; steal: steal_from; give_up: give_up_at
};
static_assert(sizeof(tl_event) == 32, "a timeline event is 32 bytes (docs/guide/tracing.md sizes buffers by it)");

// One per cache line: the workers' recorders sit side by side in a vector, and each worker writes its
// own at every event (sharing a line made a traced fib at 2 workers twice as slow per event).
class alignas(64) timeline_recorder {
 public:
  // Counter samples: every this many segment switches (and when the worker parks).
  static constexpr unsigned sample_every = 128;

  void attach(tl_event* buffer, std::size_t capacity, const trace_clock* clock, unsigned index) noexcept {
    begin_ = next_ = buffer;
    end_ = buffer + capacity;
    if (capacity == 0) until_sample_ = ~0u;  // nothing to keep a sample in: never due
    clock_ = clock;
    flow_base_ = (std::uint64_t{index} + 1) << 40;
  }

  std::uint64_t now() const noexcept { return clock_->now(); }
  // The next event's slot, stamped now; null once the buffer is full (the event is counted as dropped).
  // The clock is read only for an event that is kept: a recorder without a buffer (the hooks of a
  // SLAW_RECORD run without a timeline) must cost its worker's strands next to nothing.
  tl_event* append(tl_event::type_t type) noexcept {
    if (end_ - next_ > 1) [[likely]] {
      tl_event* e = next_++;
      e->t = now();
      e->type = type;
      return e;
    }
    return end_ == begin_ ? dropped_nothing_kept() : full(now());
  }
  tl_event* append_at(tl_event::type_t type, std::uint64_t t) noexcept {
    if (end_ - next_ > 1) [[likely]] {
      tl_event* e = next_++;
      e->t = t;
      e->type = type;
      return e;
    }
    return full(t);
  }
  // A fresh flow id for a steal by this worker: unique within the runtime (worker index + 1 in the
  // bits above 40), and exact as a JSON number (below 2^53 for up to 4096 workers).
  std::uint64_t next_flow() noexcept { return flow_base_ | ++steals_; }
  // Counts a segment switch; true when a counter sample is due (never without a buffer).
  bool sample_due() noexcept {
    if (--until_sample_ != 0) return false;
    const bool kept = end_ != begin_;
    until_sample_ = kept ? sample_every : ~0u;
    return kept;
  }

  const tl_event* begin() const noexcept { return begin_; }
  const tl_event* end() const noexcept { return next_; }
  std::size_t capacity() const noexcept { return static_cast<std::size_t>(end_ - begin_); }
  std::uint64_t dropped() const noexcept { return dropped_; }

  // How the next strand's task was found (set when it is taken, used when it starts), and the name of
  // the task whose segment is open (for a wait in place, which closes it and opens it again).
  segment_kind pending = segment_kind::none;
  std::uint64_t pending_flow = 0;
  const char* current_name = nullptr;

 private:
  tl_event* dropped_nothing_kept() noexcept {
    ++dropped_;
    return nullptr;
  }
  tl_event* full(std::uint64_t t) noexcept {
    if (dropped_ == 0 && next_ != end_) {  // the marker goes in the slot kept for it
      next_->t = t;
      next_->type = tl_event::buffer_full;
      next_->a = next_->b = 0;
      next_->c = 0;
      next_->sub = 0;
      ++next_;
    }
    ++dropped_;
    return nullptr;
  }

  tl_event* begin_ = nullptr;
  tl_event* next_ = nullptr;
  tl_event* end_ = nullptr;
  const trace_clock* clock_ = nullptr;
  std::uint64_t dropped_ = 0;
  std::uint64_t flow_base_ = 0, steals_ = 0;
  unsigned until_sample_ = sample_every;
};

}  // namespace slaw::detail

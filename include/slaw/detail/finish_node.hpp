// A dynamic finish instance (Guo, PhD thesis, Rice 2010, §4.5.2) and the termination protocol.
//
// Protocol (equivalent to SLAW's check-in/check-out with gwc/lc, see docs/design/finish.md for the proof):
// `count` is the number of outstanding *counted units* of this finish. A unit is the finish's body
// (from open to end) or a task spawned with this finish as its IEF. Units are counted lazily:
//   * open:                    count = 1 (the body), a plain store; the node is private.
//   * help-first spawn:        +1 (relaxed RMW) before the child is pushed.
//   * work-first spawn:        nothing: the child runs now and shares its parent's unit.
//   * a work-first child becomes *detached* (its parent's continuation leaves the worker's stack
//     discipline) when a thief takes the continuation, or when the child's chain suspends while the
//     continuation is still queued: then +1 for the child, by the thief (under the victim's steal lock)
//     or by the suspending worker (before it releases anything).
//   * a counted unit ends:     -1 (acq_rel). Whoever brings it to 0 resumes the waiter: exactly one.
//   * end of finish:           if count == 1 (acquire) the body is the only unit: done, no RMW.
//                              Otherwise register the waiter, then release the body unit (-1).
// Invariant: count == number of counted units not yet ended, and every live unit of this finish is
// counted or shares the unit of a live counted ancestor on one worker's stack. Hence count reaches 0
// only after the body ended and every task transitively spawned into this finish ended.
// Exceptions: the first unit to throw sets `exc_bit` (so the fast path fails) and stores `exc`;
// the waiter rethrows it. Later exceptions are dropped.
// DAG recording (SLAW_RECORD): a scope opened while a runtime records sets `rec_bit` at open (the node is
// still private), so that its end leaves the fast path too and is recorded where the frame reaches the
// join (worker::end_recorded), which clears the bit. The end's fast path thus tests nothing for it.
// Neither bit is a unit: `count_mask` leaves both out.
#pragma once

#include <atomic>
#include <coroutine>
#include <cstdint>
#include <exception>

#include "slaw/export.hpp"

namespace slaw::detail {

struct external_waiter;  // a thread blocked in runtime::run
struct promise_base;

struct SLAW_EXPORT finish_node {
  static constexpr std::uint64_t exc_bit = std::uint64_t{1} << 62;
  static constexpr std::uint64_t rec_bit = std::uint64_t{1} << 61;
  static constexpr std::uint64_t count_mask = rec_bit - 1;

  std::atomic<std::uint64_t> count;
  finish_node* parent;
  promise_base* waiter;       // the frame suspended at the end of this finish (its task is named in traces)
  external_waiter* external;  // root finishes only (depth 0): completion wakes a thread
  std::exception_ptr* exc;    // meaningful once exc_bit is set: the first unit's exception (owned by the waiter)
  std::uint32_t depth;        // sync-tree depth: 0 for the root finish of a run, > 0 otherwise

  // A finish nested in `p` (the fast path: three plain stores).
  void open(finish_node* p) noexcept {
    parent = p;
    depth = p->depth + 1;
    count.store(1, std::memory_order_relaxed);
  }
  // Its start was recorded (before any unit is added: the node is private).
  void note_recorded() noexcept { count.store(1 | rec_bit, std::memory_order_relaxed); }
  bool recorded() const noexcept { return count.load(std::memory_order_relaxed) & rec_bit; }
  // Clears rec_bit; true if it was set (then the caller records the end).
  bool take_recorded() noexcept {
    if (!recorded()) return false;
    count.fetch_and(~rec_bit, std::memory_order_relaxed);
    return true;
  }
  // The implicit finish around a run's root task, whose completion wakes the thread in run().
  void open_root(external_waiter* w) noexcept {
    parent = nullptr;
    depth = 0;
    external = w;
    count.store(1, std::memory_order_relaxed);
  }
  // The end_finish fast path: only the body is left, nothing threw and nothing records (either bit makes
  // it fail).
  bool only_body_left() const noexcept { return count.load(std::memory_order_acquire) == 1; }
  // Only the body is left, whether or not a unit threw (a scope left without end_finish waits for this).
  bool units_left_only_body() const noexcept { return (count.load(std::memory_order_acquire) & count_mask) == 1; }
  void add_unit() noexcept { count.fetch_add(1, std::memory_order_relaxed); }
  void stash(std::exception_ptr e) noexcept {
    if (!(count.fetch_or(exc_bit, std::memory_order_acq_rel) & exc_bit)) exc = new std::exception_ptr(std::move(e));
  }
  // For the waiter, after the finish completed: the stashed exception (if any), releasing it.
  std::exception_ptr take_exception() noexcept {
    if (!has_exception()) return nullptr;
    count.fetch_and(~exc_bit, std::memory_order_relaxed);
    std::exception_ptr e = std::move(*exc);
    delete exc;
    return e;
  }
  bool has_exception() const noexcept { return count.load(std::memory_order_relaxed) & exc_bit; }
  // Whether this finish is `f` or nested in it (sync tree). Nodes outlive the tasks inside them, so a
  // task's innermost finish and its ancestors are live while the task is.
  bool is_inside(const finish_node* f) const noexcept {
    const finish_node* g = this;
    while (g && g->depth > f->depth) g = g->parent;
    return g == f;
  }
  // Ends one counted unit; returns the handle to transfer to (the waiter if this was the last unit).
  std::coroutine_handle<> arrive() noexcept {
    std::uint64_t old = count.fetch_sub(1, std::memory_order_acq_rel);
    if ((old & count_mask) == 1) return complete();
    return std::noop_coroutine();
  }
  std::coroutine_handle<> complete() noexcept;  // resumes the waiter, or wakes the external thread
};

}  // namespace slaw::detail

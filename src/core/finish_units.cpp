// The worker's side of the finish protocol (docs/design/finish.md): ending counted units, detaching a
// work-first child before a chain stops (W1), suspending at end_finish, and waiting in place.
#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "core/runtime_impl.hpp"
#include "core/scheduler.hpp"
#include "slaw/detail/record_hooks.hpp"
#include "slaw/detail/worker.hpp"
#include "slaw/task.hpp"

namespace slaw::detail {

namespace {
bool is_noop(std::coroutine_handle<> h) noexcept { return h.address() == std::noop_coroutine().address(); }
// The task gauge's publication from the joined end, as a cold entry (codegen.hpp).
SLAW_COLD_ENTRY void cold_publish_tasks(worker* w) noexcept { w->publish_tasks(); }
}  // namespace

// A spawned task ended and its entry is not the private bottom. Either its entry is the bottom of the
// shared region (reclaim it and return to the parent), or it was detached: end its unit.
std::coroutine_handle<> worker::complete_spawned_slow(promise_base* p) noexcept {
  auto me = reinterpret_cast<split_deque::entry>(p);
  if (pre_.private_empty()) {
    split_deque::entry got = split_deque::none;
    std::uint32_t head_before = pre_.head();
    switch (pre_.pop_shared(me, got)) {
      case split_deque::shared_pop::got: {
        task_ends();
        if (pre_.head() == head_before) {  // taken by advancing tail: keep depth = head - base
          ++base_;
          watch_depth();
        }
        void* const par = p->parent;
        if (tl_) [[unlikely]] trace_child_returned(p, promise_of(par));
        release_finished_frame(p);
        return std::coroutine_handle<>::from_address(par);
      }
      case split_deque::shared_pop::stolen:
      case split_deque::shared_pop::not_mine:
        break;
    }
  }
  // A thief that took an entry from this deque counts the detached child while it holds the steal
  // lock. Our entry may have been taken by such a thief, also long ago on this worker while our
  // chain went on: wait until no thief is inside, so its increment happens-before our decrement.
  // (Had our chain moved to another worker since, that move itself went through the lock or
  // through a suspension, which waits here too.)
  pre_.wait_for_thieves();
  return complete_queued(p);  // detached: end the unit it was counted as
}

std::coroutine_handle<> worker::complete_queued(promise_base* p) noexcept {
  if (tl_) [[unlikely]] trace_returned(p);
  task_ends();
  sync_mirrors();
  finish_node* f = p->join;
  bool root = !p->parent;
  release_finished_frame(p);
  std::coroutine_handle<> next = f->arrive();
  if (!is_noop(next)) {
    if (tl_) [[unlikely]] trace_resumed(f->waiter);  // we ended its last unit: the waiter's frame (and f in it) is live until resumed
    return next;
  }
  if (!root) c_.context_switches.bump();
  return next_own_strand();
}

std::coroutine_handle<> worker::join_at_end(finish_node* f, promise_base* waiter) noexcept {
  if (promise_base* c = take_joinable(f)) {
    f->waiter = waiter;  // read by the child's end (complete_other), perhaps on another worker
    return c->self();
  }
  return suspend_at_end(f, waiter);
}

// The waiter held its body unit while the joined child `p` ran, so this decrement never ends the
// finish: the unit count before it is at least 2. At exactly 2 only the body is left, and the waiter
// goes on (the acq_rel RMW orders every other unit's end before it, as arrive() does for the last unit).
//
// The common path (the waiter goes on here) calls nothing that costs it a register: the gauge's and the
// free's rare calls are cold entries (codegen.hpp) and the rest is a tail call, so under clang it saves
// no callee-saved register (12 instructions of a help-first fib node).
std::coroutine_handle<> worker::complete_other(promise_base* p) noexcept {
  if (p->kind != task_kind::joined) [[unlikely]] {
    if (p->kind == task_kind::spawned) return complete_spawned(p);
    return end_body(*p);
  }
  assert(!tl_);  // joins are not taken while the hooks run
  ++tasks_up_;  // task_ends, with the cold call
  if (--tasks_down_ == 0) [[unlikely]] cold_publish_tasks(this);
  finish_node* f = p->join;
  promise_base* waiter = f->waiter;
  release_finished_frame<true>(p, alloc_);
  const std::uint64_t old = f->count.fetch_sub(1, std::memory_order_acq_rel);
  assert((old & finish_node::count_mask) >= 2);
  if ((old & finish_node::count_mask) == 2) {
    // The common case, resume_waiter's without its noop test (5 instructions of a help-first node).
    if (!waiting_for_ && waiter->place == current_place()) [[likely]] return waiter->self();
  } else if (promise_base* c = take_next_joinable(f)) {
    return c->self();
  }
  return joined_end_slow(f, waiter, old);
}

// The joined end's other cases: the waiter goes on elsewhere or after a wait in place (only the body is
// left), or it suspends (units left, none of them joinable here).
std::coroutine_handle<> worker::joined_end_slow(finish_node* f, promise_base* waiter, std::uint64_t old) noexcept {
  if ((old & finish_node::count_mask) == 2) {
    // On the worker that took the child, resume_waiter resumes it here; on another (the child
    // suspended and went on elsewhere, which detached the waiter as for a call) it may post it.
    std::coroutine_handle<> next = resume_waiter(waiter);
    return is_noop(next) ? next_own_strand() : next;
  }
  return suspend_at_end(f, waiter);
}

std::coroutine_handle<> worker::next_own_strand() noexcept {
  alloc_->drain_remote();
  alloc_->take_peak_reset();
  promise_base* q = take_own(waiting_for_);
  if (!q) return std::noop_coroutine();
  begin_strand(q->place);
  c_.tasks_run.bump();
  if (tl_) [[unlikely]] {
    trace_strand_ends();
    trace_strand_begins(q);
  }
  return q->self();
}

// With places, a waiting thread may be the only one of its place: its older continuations, which it
// may not resume on top of the wait, go to their places' mailboxes, where another worker of the place,
// or this one after the wait, resumes them, as a thief would. Left in the deque they could bury, under
// an entry this thread may not run, one it must run for the wait to end (docs/design/finish.md).
//
// All entries are detached before any is posted: a posted frame may run and end at once elsewhere, and
// an older untagged entry of its chain (its parent's continuation, naming it as the child) must have
// counted it first, as a thief taking the oldest entry first would have (out of memory for the list
// ends the process, as a deque that cannot grow does).
void worker::hand_off_preempted() noexcept {
  std::vector<promise_base*> frames;
  for (split_deque::entry e = pre_.pop(); e != split_deque::none; e = pre_.pop())
    frames.push_back(detach_entry(e));  // counts an untagged entry's child, which is alive until posted
  pre_.wait_for_thieves();  // a thief that emptied the deque may still be counting
  for (promise_base* cont : frames) sched_->post(*this, cont, true);
}

void worker::detach_bottom() noexcept {
  pre_.wait_for_thieves();  // see complete_spawned_slow: in-flight thief increments come first
  split_deque::entry e = split_deque::none;
  if (!pre_.private_empty()) {
    e = pre_.pop();
  } else {
    if (pre_.pop_shared(split_deque::none, e) == split_deque::shared_pop::stolen) {
      pre_.wait_for_thieves();  // a thief that emptied the deque may still be counting
      return;
    }
  }
  if (e == split_deque::none) return;
  // An owned deque holds no start_tag entries: the entry resumes its own frame, or its parent's.
  push_back(reinterpret_cast<split_deque::entry>(detach_entry(e)) | parent_tag);
}

std::coroutine_handle<> worker::suspend_at_end(finish_node* f, promise_base* waiter) noexcept {
  if (f->recorded()) [[unlikely]] return end_recorded(f, waiter);
  f->waiter = waiter;
  sync_mirrors();
  detach_bottom();  // before the release below: afterwards the waiter may run anywhere
  std::coroutine_handle<> next = f->arrive();
  if (!is_noop(next)) return next;
  c_.context_switches.bump();
  return next_own_strand();
}


// A recorded scope's end comes here: its rec_bit fails the end's fast path, and a recording worker takes
// no joins (take_joinable). The task reaches the join now. Out of line: in suspend_at_end the call cost
// every join a register.
std::coroutine_handle<> worker::end_recorded(finish_node* f, promise_base* waiter) noexcept {
  f->take_recorded();
  record_end_finish(waiter);
  if (f->only_body_left()) return waiter->self();
  return suspend_at_end(f, waiter);
}

// Waiting in place (docs/design/finish.md). The frame below us on this thread's stack waits for `f`; running
// a task outside `f` here could make that task wait for this frame (it lies below it on the same
// stack): a deadlock. Tasks inside `f` only wait for finishes nested in `f`, which never need a frame
// below the wait. So it runs only tasks inside `f`: own bottom entries inside f; set-aside tasks
// inside f; steals, where a stolen task outside f is handed to others (work stealing: the set-aside
// queue; the space-efficient variant: left in its ordered list); frames inside f that an external event
// resumed. No injected roots.
void worker::wait_in_place(finish_node* f) noexcept {
  detach_bottom();  // our chain stops here for a while: no untagged entry of it may stay behind (W1)
  if (wait_runs_unstarted_) hand_off_preempted();
  const char* waiting_task = tl_ ? trace_wait_begins() : nullptr;
  void* anchor = sched_->begin_wait(*this, f);
  const finish_node* outer = std::exchange(waiting_for_, f);  // strands started here take only tasks inside f
  const wait_link link{f, waits_};
  waits_ = &link;
  const std::uint16_t place = current_place();  // the waiting frame's, restored when it goes on
  unsigned idle_rounds = 0;
  while (!f->units_left_only_body()) {
    promise_base* p = take_own(f);
    if (!p) p = take_resumed(f);  // a wait on an external event inside f (include/slaw/external.hpp)
    if (!p) p = steal(f);
    if (p) {
      idle_rounds = 0;
      run_strand(p);
      continue;
    }
    // Nothing to run: the scope's tasks run elsewhere. Nobody wakes a waiter in place (its finish
    // does not complete while the body unit is held), so back off by polling.
    if (++idle_rounds < 64) {
      cpu_relax();
    } else if (idle_rounds < 128) {
      std::this_thread::yield();
    } else {
      long ns = 1000L << std::min(idle_rounds - 128, 10u);  // 1 us .. 1 ms
      std::this_thread::sleep_for(std::chrono::nanoseconds(ns));
    }
  }
  waiting_for_ = outer;
  waits_ = link.outer;
  sched_->end_wait(*this, anchor);
  begin_strand(place);
  if (tl_) trace_wait_ends(waiting_task);
}

}  // namespace slaw::detail

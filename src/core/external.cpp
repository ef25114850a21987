// Waits on external events (include/slaw/external.hpp; docs/design/finish.md § Waits on external events).
//
// A wait is a finish node with two units: the waiting frame's own (its "body") and the event's. The
// frame's side is suspend_at_end, as for an end_finish with units left: it detaches the chain's bottom
// (W1), publishes the waiter, then ends its unit. The event's side ends the other unit from any thread.
// Whichever decrement is the last resumes the frame: on the waiting worker, if the event had completed
// before the frame suspended (suspend_at_end's arrive returns the frame); otherwise on the thread that
// completed the event, which cannot run tasks, so it queues the frame for the runtime's workers.
// Ordering: the frame's decrement is a release after the waiter is stored, the event's an acq_rel RMW
// on the same counter, so the completer that ends the last unit sees the waiter (and the frame's
// state); the worker that takes the frame from the queue sees it through the queue's mutex.
// The completer touches the wait only before its decrement, or after it when it ended the last unit:
// the frame (and the wait in it) cannot be resumed and freed before that.
#include <stdexcept>

#include "core/runtime_impl.hpp"
#include "slaw/external.hpp"

namespace slaw::detail {

void external_open(external_wait& w, promise_base& frame) {
  worker* self = tls_worker;
  if (!self) throw std::logic_error("slaw::wait_for: must be awaited by a task running on a slaw runtime");
  w.rt = self->rt();
  w.node.open(frame.cur);
  w.node.count.store(2, std::memory_order_relaxed);  // the frame and the event; private until handed on
  frame.cur = &w.node;
}

void external_cancel(external_wait& w, promise_base& frame) noexcept { frame.cur = w.node.parent; }

std::coroutine_handle<> external_suspend(external_wait& w, promise_base& frame) noexcept {
  return tls_worker->suspend_at_end(&w.node, &frame);
}

void external_complete(external_wait* w) noexcept {
  const std::uint64_t old = w->node.count.fetch_sub(1, std::memory_order_acq_rel);
  if ((old & finish_node::count_mask) != 1) return;  // the frame has not suspended yet: it goes on itself
  w->rt->resume_external(w->node.waiter);
}

}  // namespace slaw::detail

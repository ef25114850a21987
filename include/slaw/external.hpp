// slaw::wait_for: a task waits for an event that something outside the runtime completes (a message, an
// I/O completion, a callback of another library), and its worker runs other tasks meanwhile.
//
//   co_await slaw::wait_for([&](slaw::completion c) { start_the_operation(..., c); });
//   // here the operation has completed: c.complete() was called, on any thread
//
// `start` runs on the waiting task's worker before the task suspends; it hands the completion to
// whoever will call complete(), exactly once, from any thread (the runtime's workers included, or
// synchronously inside `start` itself). If `start` throws it must not have handed the completion on:
// the exception then leaves the co_await and nothing waits.
//
// The wait is a finish with one unit that is not a task (docs/design/finish.md, § Waits on external
// events): the task's frame suspends as at an end_finish with units left, and complete() ends that unit.
// If it was the last, the frame goes to the runtime's queue of resumed frames, where an idle worker (one
// of the frame's place) takes it and wakes for it if all sleep. A worker waiting in place for an
// enclosing finish takes it too, so a wait inside an abandoned scope cannot deadlock.
#pragma once

#include <coroutine>
#include <exception>
#include <utility>

#include "slaw/export.hpp"
#include "slaw/task.hpp"

namespace slaw {

namespace detail {
class runtime_impl;
// The wait's state, in the waiting frame (inside the awaiter).
struct external_wait {
  finish_node node;
  runtime_impl* rt = nullptr;
  external_wait() noexcept = default;
  // The awaiter may be moved into the frame before it is awaited; nothing is set before that.
  external_wait(external_wait&&) noexcept {}
};
// Opens the wait on the calling worker: the node nested in the frame's innermost finish, with two units
// (the frame and the event). Throws std::logic_error off a worker.
SLAW_EXPORT void external_open(external_wait& w, promise_base& frame);
// `start` threw before handing the completion on: the wait is closed with nothing to wait for.
SLAW_EXPORT void external_cancel(external_wait& w, promise_base& frame) noexcept;
// The frame suspends (its own unit ends); the handle to go on with: the frame itself if the event has
// already completed, else this worker's next task.
SLAW_EXPORT std::coroutine_handle<> external_suspend(external_wait& w, promise_base& frame) noexcept;
// The event's unit ends (any thread); if it was the last, the frame is queued for a worker.
SLAW_EXPORT void external_complete(external_wait* w) noexcept;
}  // namespace detail

template <class Start>
struct SLAW_TRANSFER_ABI wait_for_awaiter;

// Ends one wait_for; call complete() exactly once. Copyable so that a C callback can carry it, but
// only one copy may complete.
class completion {
 public:
  void complete() const noexcept { detail::external_complete(w_); }

 private:
  template <class Start>
  friend struct wait_for_awaiter;
  explicit completion(detail::external_wait* w) noexcept : w_(w) {}
  detail::external_wait* w_;
};

template <class Start>
struct SLAW_TRANSFER_ABI wait_for_awaiter {
  Start start;
  detail::external_wait w;
  detail::promise_base* frame = nullptr;

  bool await_ready() const noexcept { return false; }
  template <class P>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) {
    frame = &h.promise();
    detail::external_open(w, *frame);
    try {
      start(completion(&w));
    } catch (...) {
      detail::external_cancel(w, *frame);
      throw;  // the task resumes with the exception
    }
    return detail::transfer(detail::external_suspend(w, *frame));
  }
  void await_resume() const noexcept { frame->cur = w.node.parent; }
};

template <class Start>
wait_for_awaiter<std::decay_t<Start>> wait_for(Start&& start) {
  return {std::forward<Start>(start), {}, nullptr};
}

}  // namespace slaw

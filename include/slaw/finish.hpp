// slaw::finish: wait for every task spawned inside, transitively (HJ `finish`, SLAW, Guo et al., IPDPS 2010, §II-B).
//
// Two forms:
//   co_await slaw::finish([&]() -> slaw::task<> { co_await slaw::async(...); ... });   // body as a task
//
//   auto f = co_await slaw::start_finish();   // the finish node lives in this frame: no extra frame
//   co_await slaw::async(&a, fib, n - 1);
//   b = co_await fib(n - 2);
//   co_await slaw::end_finish(f);
//
// An exception thrown by a task spawned inside is rethrown where the finish ends (the first one wins).
// A scope left without end_finish (an exception, an early co_return) waits for its tasks before it is
// destroyed, running other tasks on this thread meanwhile; its tasks' exceptions are then dropped.
#pragma once

#include "slaw/export.hpp"
#include "slaw/task.hpp"

namespace slaw {

class finish_scope;
namespace detail {
struct start_finish_awaiter;
struct SLAW_TRANSFER_ABI end_finish_awaiter;
void check_end_finish(const promise_base& frame, const finish_scope& s) noexcept(false);
// `ending`: the frame that tried to end `s` (check_end_finish).
[[noreturn]] SLAW_EXPORT void throw_bad_end_finish(const promise_base* ending, const finish_scope& s);
// Rethrows the exception stashed in `f` (out of line: see rethrow_owned).
[[noreturn]] SLAW_EXPORT void rethrow_finish_exception(finish_node& f);
// A finish body (lambda form) ended with `body_exc` (null: none) or its children threw: takes the
// children's exception out of `f`, then rethrows the body's own, which wins, or else the children's.
[[noreturn]] SLAW_EXPORT void rethrow_body_or_children(std::exception_ptr* body_exc, finish_node& f);
}  // namespace detail

class SLAW_EXPORT finish_scope {
 public:
  finish_scope(const finish_scope&) = delete;
  finish_scope& operator=(const finish_scope&) = delete;
  ~finish_scope() {
    if (frame_) [[unlikely]] abandon();
  }

 private:
  friend struct detail::start_finish_awaiter;
  friend struct end_finish_op;
  friend struct detail::end_finish_awaiter;
  friend void detail::check_end_finish(const detail::promise_base&, const finish_scope&);
  friend void detail::throw_bad_end_finish(const detail::promise_base*, const finish_scope&);
  explicit finish_scope(detail::promise_base* frame) noexcept : frame_(frame) {
    node_.open(frame->cur);
    frame->cur = &node_;
    // A recorded start makes the end leave its fast path, where it is recorded (finish_node's rec_bit).
    if (detail::recording()) [[unlikely]]
      if (detail::record_start_finish(frame)) node_.note_recorded();
  }
  void abandon() noexcept;

  detail::finish_node node_;
  detail::promise_base* frame_;  // the frame that opened the scope; null once it ended
};

struct start_finish_op {};
inline start_finish_op start_finish() noexcept { return {}; }

struct end_finish_op {
  finish_scope* scope;
};
inline end_finish_op end_finish(finish_scope& f) noexcept { return {&f}; }

namespace detail {

struct start_finish_awaiter {
  detail::promise_base* frame;
  bool await_ready() const noexcept { return true; }
  void await_suspend(std::coroutine_handle<>) const noexcept {}
  [[gnu::always_inline]] finish_scope await_resume() const noexcept { return finish_scope(frame); }
};
inline start_finish_awaiter transform(detail::promise_base& p, start_finish_op, transform_tag) noexcept { return {&p}; }

// The end's fast path runs in transform: when only the body is left, the scope ends there and the
// awaiter, holding null, does nothing. An awaiter lives in the frame (codegen.hpp, "where a spawn
// begins"), so the scope it held was stored and loaded back, and await_resume tested for an exception
// that a count of exactly 1 has already ruled out (5 instructions of a fib node under clang).
struct SLAW_TRANSFER_ABI end_finish_awaiter {
  finish_scope* scope;  // null: ended in transform; else the scope to end after the wait
  [[gnu::always_inline]] static end_finish_awaiter make(detail::promise_base& p, finish_scope* s) noexcept {
    // Only the body is left (no exception either: exc_bit would make the count differ from 1).
    if (s->node_.only_body_left()) [[likely]] {
      p.cur = s->node_.parent;
      s->frame_ = nullptr;
      return {nullptr};
    }
    return {s};
  }
  [[gnu::always_inline]] bool await_ready() const noexcept { return scope == nullptr; }
  template <class P>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) const noexcept {
    return transfer(detail::tls_worker->join_at_end(&scope->node_, &h.promise()));
  }
  [[gnu::always_inline]] void await_resume() const {
    if (!scope) return;
    scope->frame_->cur = scope->node_.parent;
    scope->frame_ = nullptr;
    if (scope->node_.has_exception()) [[unlikely]] rethrow_finish_exception(scope->node_);
  }
};
// Ending a scope twice, a scope that is not the innermost open one, or a scope that another frame
// opened is a programming error. The ending frame's innermost finish must be the scope's (an ended
// scope has set it back to its parent), and the ending frame must be the scope's opener: a task called
// or spawned inside the scope has it as its innermost finish too. Inline, the throw out of line.
inline void check_end_finish(const detail::promise_base& frame, const finish_scope& s) noexcept(false) {
  if (s.frame_ != &frame || frame.cur != &s.node_) [[unlikely]] throw_bad_end_finish(&frame, s);
}
[[gnu::always_inline]] inline end_finish_awaiter transform(detail::promise_base& p, end_finish_op op, transform_tag) {
  check_end_finish(p, *op.scope);
  return end_finish_awaiter::make(p, op.scope);
}

// Lambda form: the body runs as a sequential call of a task whose completion ends the finish.
template <class Body>
struct finish_op {
  Body body;
};

template <class Body>
struct SLAW_TRANSFER_ABI finish_awaiter {
  using body_task = std::invoke_result_t<Body&>;
  using T = typename body_task::value_type;
  static_assert(std::is_void_v<T>, "slaw::finish: the body must return slaw::task<void>");

  detail::promise_base* frame;
  Body body;
  detail::finish_node node;
  std::coroutine_handle<promise<void>> h;

  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<>) {
    node.open(frame->cur);
    h = body().release();
    promise<void>& b = h.promise();
    b.kind = detail::task_kind::body;
    b.parent = frame->frame();
    b.join = &node;
    b.cur = &node;
    b.place = frame->place;
    b.out = nullptr;
    b.exc = nullptr;
    return transfer(start_call(frame, b));
  }
  void await_resume() {
    std::exception_ptr* body_exc = h.promise().exc;
    h.destroy();
    if (body_exc || node.has_exception()) [[unlikely]] rethrow_body_or_children(body_exc, node);
  }
};

template <class Body>
finish_awaiter<Body> transform(detail::promise_base& p, finish_op<Body>&& op, transform_tag) {
  return finish_awaiter<Body>{&p, std::move(op.body), {}, {}};
}

}  // namespace detail

template <class Body>
detail::finish_op<std::decay_t<Body>> finish(Body&& body) {
  return {std::forward<Body>(body)};
}

}  // namespace slaw

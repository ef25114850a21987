// Out-of-line parts of the finish forms (include/slaw/finish.hpp).
#include "slaw/finish.hpp"

#include "core/runtime_impl.hpp"

#include <stdexcept>
#include <string>

namespace slaw {

namespace detail {
// The last unit of a finish ended: resume its waiter, or, for a run's root finish, wake the thread
// blocked in runtime::run.
std::coroutine_handle<> finish_node::complete() noexcept {
  if (depth == 0) {
    external_waiter* ext = external;
    ext->done.store(1, std::memory_order_release);
    futex_wake(&ext->done, 1);
    return std::noop_coroutine();
  }
  return tls_worker->resume_waiter(waiter);
}

void throw_empty_task(const char* where) {
  throw std::invalid_argument(std::string(where) +
                              ": the task is empty (default-constructed, moved from, or already awaited)");
}

void throw_bad_end_finish(const promise_base* ending, const finish_scope& s) {
  const promise_base* opener = s.frame_;
  if (!opener) throw std::logic_error("slaw::end_finish: this finish scope has already ended");
  if (opener != ending)
    throw std::logic_error("slaw::end_finish: a finish scope must be ended by the task that started it, not by a task it called or spawned");
  throw std::logic_error("slaw::end_finish: finish scopes must end innermost first (an inner scope is still open)");
}

void rethrow_owned(std::exception_ptr* e) {
  std::exception_ptr x = std::move(*e);
  delete e;
  std::rethrow_exception(std::move(x));
}

void rethrow_finish_exception(finish_node& f) { std::rethrow_exception(f.take_exception()); }

void rethrow_body_or_children(std::exception_ptr* body_exc, finish_node& f) {
  std::exception_ptr children = f.take_exception();
  if (body_exc) rethrow_owned(body_exc);
  std::rethrow_exception(std::move(children));
}

std::coroutine_handle<> end_body(detail::promise_base& body) noexcept {
  detail::finish_node* f = body.join;
  detail::promise_base* opener = detail::promise_of(body.parent);
  if (detail::recording()) [[unlikely]] record_body_end(&body, opener);
  if (f->only_body_left()) return opener->self();
  return detail::tls_worker->join_at_end(f, opener);
}
}  // namespace detail

void finish_scope::abandon() noexcept {
  if (node_.take_recorded()) detail::record_end_finish(frame_);  // the scope joins here
  detail::tls_worker->wait_in_place(&node_);
  (void)node_.take_exception();  // dropped: an exception is already propagating, or the scope was left early
  frame_->cur = node_.parent;
  frame_ = nullptr;
}

}  // namespace slaw

// Out-of-line parts of the finish forms (include/slaw/finish.hpp).
#include "slaw/finish.hpp"

namespace slaw {

namespace detail {
std::coroutine_handle<> end_body(core::promise_base& body) noexcept {
  core::finish_node* f = body.join;
  core::promise_base* opener = body.parent;
  if (f->only_body_left()) return opener->self;
  return core::tls_worker->suspend_at_end(f, opener->self);
}
}  // namespace detail

void finish_scope::abandon() noexcept {
  core::tls_worker->help_until_body_only(&node_);
  (void)node_.take_exception();  // dropped: an exception is already propagating, or the scope was left early
  ended_ = true;
  frame_->cur = node_.parent;
}

}  // namespace slaw

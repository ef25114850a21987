// Where a task goes when its place is not where it was made or where its finish ended (docs/design/places.md):
// a spawn for another place, and a waiting frame resumed by a worker outside its place. Both are slow
// paths; a spawn without a place clause and a finish ending inside its waiter's place never come here.
#include <cstdio>
#include <cstdlib>

#include "core/runtime_impl.hpp"
#include "core/scheduler.hpp"
#include "slaw/detail/worker.hpp"

namespace slaw::detail {

void worker::spawn_elsewhere(promise_base* child, std::uint32_t place, const char* name) noexcept {
  if (place >= allowed_.size()) [[unlikely]] {
    // A spawn cannot throw; a place handle of another runtime is a programming error.
    std::fprintf(stderr,
                 "slaw::async: slaw::at(place %u), but this runtime has %zu places: a place handle of another "
                 "runtime?\n",
                 place, allowed_.size());
    std::abort();
  }
  child->kind = task_kind::queued;
  child->place = static_cast<std::uint16_t>(place);
  child->join->add_unit();
  if (tl_) [[unlikely]] trace_queued(child, name, policy::schedule::hf);  // queued, whatever the clause; before anyone can see it
  if (place == leaf_) {
    push_fresh(child);  // this worker's own leaf: its deque is the place's
    return;
  }
  c_.spawns_hf.bump();  // queued, as a help-first child (push_fresh counts the other case)
  sched_->post(*this, child, false);
}

bool worker::may_resume_over_waits(const promise_base* x) const noexcept {
  for (;;) {
    // The scopes x opened: from its innermost open finish up to the one it started in (a call's is its
    // caller's innermost at the call; a spawned task's or a body's is its join).
    const finish_node* base = x->kind == task_kind::called ? promise_of(x->parent)->cur : x->join;
    for (const finish_node* s = x->cur; s && s != base; s = s->parent)
      for (const wait_link* w = waits_; w; w = w->outer)
        if (w->f->is_inside(s)) return false;
    if (x->kind == task_kind::spawned || x->kind == task_kind::queued) return true;
    // Its end resumes, on this thread, its caller, the finish's opener, or (joined) its finish's waiter,
    // which need not be its parent: an escaping async's parent may be gone.
    x = x->kind == task_kind::joined ? x->join->waiter : promise_of(x->parent);
  }
}

std::coroutine_handle<> worker::post_waiter(promise_base* waiter) noexcept {
  sched_->post(*this, waiter, true);  // a worker of its place resumes it
  return std::noop_coroutine();
}

}  // namespace slaw::detail
